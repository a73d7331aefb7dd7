package tpch

// Random strings that are not text: dbgen's a_rnd (addresses) and
// gen_phone.

const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// appendVString is dbgen's V_STR(avg, stream): between 0.4 and 1.6 times
// avg characters of alphaNum, five taken from each draw six bits at a
// time (a_rnd).
func appendVString(dst []byte, s *streams, avg int64, sd int) []byte {
	n := s.random(int64(float64(avg)*0.4), int64(float64(avg)*1.6), sd)
	var bits int64
	for i := range n {
		if i%5 == 0 {
			bits = s.randomLong(sd)
		}
		dst = append(dst, alphaNum[bits&0o77])
		bits >>= 6
	}
	return dst
}

// nationsMax is dbgen's NATIONS_MAX: phone country codes are 10 plus the
// nation key modulo it.
const nationsMax = 90

// appendPhone is dbgen's gen_phone: "CC-AAA-EEE-NNNN", the country code
// from the nation key and three draws from stream sd.
func appendPhone(dst []byte, s *streams, nation int64, sd int) []byte {
	area := s.random(100, 999, sd)
	exchange := s.random(100, 999, sd)
	number := s.random(1000, 9999, sd)
	dst = appendDigits(dst, 10+nation%nationsMax, 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, area, 3)
	dst = append(dst, '-')
	dst = appendDigits(dst, exchange, 3)
	dst = append(dst, '-')
	return appendDigits(dst, number, 4)
}

// appendDigits appends v ≥ 0 in decimal, zero-padded to width digits.
func appendDigits(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v > 0 || i > len(buf)-width {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[i:]...)
}
