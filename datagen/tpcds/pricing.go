package tpcds

// numMoney is how many money columns catalog_sales has.
const numMoney = NumColumns - firstMoney

// pricing is one line's quantity and money columns (cents, indexed by
// column − firstMoney), computed as dsdgen's set_pricing does for
// CS_PRICING (pricing.c), with its limits for catalog_sales (constants.h:
// quantity up to 100, wholesale cost 1.00 to 100.00, markup up to 2.00,
// discount up to 1.00) and its arithmetic: decimal_t_op multiplies two
// 2-place decimals and truncates the product back to 2 places, so every
// product below is truncated toward zero where dsdgen truncates.
type pricing struct {
	quantity int64
	m        [numMoney]int64
}

func (p *pricing) get(c int) int64    { return p.m[c-firstMoney] }
func (p *pricing) put(c int, v int64) { p.m[c-firstMoney] = v }

// set draws one line's prices. The draw order follows dsdgen's; the draws
// come from this package's stream, not dsdgen's.
func (p *pricing) set(r *rng) {
	q := r.between(1, 100)
	p.quantity = q
	wholesale := r.between(100, 10_000) // 1.00 .. 100.00
	// list = wholesale × (1 + markup), markup 0.00 .. 2.00
	list := wholesale * (100 + r.between(0, 200)) / 100
	// sales = list × (1 − discount), discount 0.00 .. 1.00
	sales := list * (100 - r.between(0, 100)) / 100
	extList, extSales := list*q, sales*q
	// A coupon worth 0.00 .. 1.00 of the sale on 20% of lines.
	var coupon int64
	if frac, usage := r.between(0, 100), r.between(1, 100); usage <= 20 {
		coupon = extSales * frac / 100
	}
	netPaid := extSales - coupon
	// Shipping costs 0.00 .. 0.50 of the list price, per unit.
	extShip := list * r.between(0, 50) / 100 * q
	// Tax is 0.00 .. 0.09 of what was paid.
	extTax := netPaid * r.between(0, 9) / 100

	p.put(ColWholesaleCost, wholesale)
	p.put(ColListPrice, list)
	p.put(ColSalesPrice, sales)
	p.put(ColExtDiscountAmt, extList-extSales)
	p.put(ColExtSalesPrice, extSales)
	p.put(ColExtWholesaleCost, wholesale*q)
	p.put(ColExtListPrice, extList)
	p.put(ColExtTax, extTax)
	p.put(ColCouponAmt, coupon)
	p.put(ColExtShipCost, extShip)
	p.put(ColNetPaid, netPaid)
	p.put(ColNetPaidIncTax, netPaid+extTax)
	p.put(ColNetPaidIncShip, netPaid+extShip)
	p.put(ColNetPaidIncShipTax, netPaid+extShip+extTax)
	p.put(ColNetProfit, netPaid-wholesale*q)
}
