package colenc

// Plain: the header and the values as they are.

func appendPlain(dst, src []byte, width, n int) []byte {
	dst = appendHeader(dst, Plain, width, n)
	return append(dst, src...)
}
