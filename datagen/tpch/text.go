package tpch

import (
	"strings"
	"sync"
)

// The text pool (TPC-H 4.2.2.10, dbgen text.c): 300 MiB of pseudo-English
// sentences from dbgen's grammar, built once per process from stream 5.
// Every comment column is a substring of it at a random offset, as in
// dbgen, so the pool must be whole before the first comment is drawn.
const textPoolSize = 300 << 20

const sdText = 5

var textPool = sync.OnceValue(buildTextPool)

// grammarPart is one symbol of a grammar production: a word list to draw
// from (or a nested production) and the punctuation that follows it.
type grammarPart struct {
	sym   byte // N V P T (sentence), A J D N (noun phrase), D V X (verb phrase)
	punct byte
}

type grammar struct {
	choice *distribution // productions, by weight
	parts  [][]grammarPart
}

func loadGrammar(name string) *grammar {
	g := &grammar{choice: loadDist(name)}
	for _, w := range g.choice.words {
		var parts []grammarPart
		for _, item := range strings.Split(string(w), " ") {
			p := grammarPart{sym: item[0]}
			if len(item) > 1 {
				p.punct = item[1]
			}
			parts = append(parts, p)
		}
		g.parts = append(g.parts, parts)
	}
	return g
}

// textGen writes sentences: dbgen's txt_sentence, txt_np and txt_vp.
type textGen struct {
	s                                        *streams
	sentence, np, vp                         *grammar
	nouns, verbs, adjectives, adverbs        *distribution
	articles, prepositions, auxiliaries, end *distribution
}

func buildTextPool() []byte {
	s := &streams{}
	s[sdText] = stream{seed: 933588178}
	g := &textGen{
		s: s, sentence: loadGrammar("grammar"), np: loadGrammar("np"), vp: loadGrammar("vp"),
		nouns: loadDist("nouns"), verbs: loadDist("verbs"), adjectives: loadDist("adjectives"),
		adverbs: loadDist("adverbs"), articles: loadDist("articles"), prepositions: loadDist("prepositions"),
		auxiliaries: loadDist("auxillaries"), end: loadDist("terminators"),
	}
	pool := make([]byte, 0, textPoolSize)
	var sentence []byte
	for len(pool) < textPoolSize {
		sentence = g.appendSentence(sentence[:0])
		if need := textPoolSize - len(pool); need >= len(sentence)+1 {
			pool = append(pool, sentence...)
			pool = append(pool, ' ')
		} else {
			pool = append(pool, sentence[:need]...)
		}
	}
	return pool
}

func (g *textGen) appendSentence(dst []byte) []byte {
	for _, p := range g.sentence.parts[g.sentence.choice.pickIndex(g.s, sdText)] {
		switch p.sym {
		case 'V':
			dst = g.appendPhrase(dst, g.vp)
		case 'N':
			dst = g.appendPhrase(dst, g.np)
		case 'P':
			dst = append(dst, g.prepositions.pick(g.s, sdText)...)
			dst = append(dst, " the "...)
			dst = g.appendPhrase(dst, g.np)
		case 'T':
			dst = dst[:len(dst)-1] // the space after the last word
			dst = append(dst, g.end.pick(g.s, sdText)...)
		default:
			panic("tpch: bad grammar symbol " + string(p.sym))
		}
		if p.punct != 0 {
			dst = append(dst, p.punct)
		}
	}
	return dst
}

// appendPhrase writes a noun or verb phrase, each word followed by its
// punctuation and a space.
func (g *textGen) appendPhrase(dst []byte, gr *grammar) []byte {
	for _, p := range gr.parts[gr.choice.pickIndex(g.s, sdText)] {
		var d *distribution
		switch p.sym {
		case 'A':
			d = g.articles
		case 'J':
			d = g.adjectives
		case 'D':
			d = g.adverbs
		case 'N':
			d = g.nouns
		case 'V':
			d = g.verbs
		case 'X':
			d = g.auxiliaries
		default:
			panic("tpch: bad phrase symbol " + string(p.sym))
		}
		dst = append(dst, d.pick(g.s, sdText)...)
		if p.punct != 0 {
			dst = append(dst, p.punct)
		}
		dst = append(dst, ' ')
	}
	return dst
}

// text is dbgen's TEXT(avg, stream): a substring of the pool of between
// 0.4 and 1.6 times avg bytes at a random offset.
func text(s *streams, avg int64, sd int) []byte {
	pool := textPool()
	lo, hi := int64(float64(avg)*0.4), int64(float64(avg)*1.6)
	off := s.random(0, int64(len(pool))-hi, sd)
	n := s.random(lo, hi, sd)
	return pool[off : off+n]
}
