package bench

// tpchAnswersSF1 are TPC-H's reference answers at SF 1 (the spec's answer
// set for the validation parameters) as digests: the rows and the first
// value of the first row, money as the answer set prints it. At SF 1
// RunTPCH checks both engines against them, so wrong data in any of the
// eight tables, or a wrong query text, shows even when the engines agree.
var tpchAnswersSF1 = map[int]string{
	1:  "4 rows, first A",
	2:  "100 rows, first 9938.53",
	3:  "10 rows, first 2456423",
	4:  "5 rows, first 1-URGENT",
	5:  "5 rows, first INDONESIA",
	6:  "1 rows, first 123141078.23",
	7:  "4 rows, first FRANCE",
	8:  "2 rows, first 1995",
	9:  "175 rows, first ALGERIA",
	10: "20 rows, first 57040",
	11: "1048 rows, first 129760",
	12: "2 rows, first MAIL",
	13: "42 rows, first 0",
	14: "1 rows, first 16.38",
	15: "1 rows, first 8449",
	16: "18314 rows, first Brand#41",
	17: "1 rows, first 348406.05",
	18: "57 rows, first Customer#000128120",
	19: "1 rows, first 3083843.06",
	20: "186 rows, first Supplier#000000020",
	21: "100 rows, first Supplier#000002829",
	22: "7 rows, first 13",
}
