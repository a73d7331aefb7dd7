package agg

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// HashAggregator computes GROUP BY aggregates over batches of Arrow arrays.
// It is not safe for concurrent use.
type HashAggregator struct {
	mem      memory.Allocator
	keyTypes []arrow.DataType
	argTypes []arrow.DataType
	specs    []Spec
	names    []string
	acct     account
	tab      *table // nil with no keys: one global group
	cols     []keyColumn
	states   []state // one per distinct stateKey of specs
	stKeys   []Spec  // per state: its stateKey (Arg -1 for count(*))
	stNames  []string
	out      []int  // per spec: its state
	seed     uint64 // of the row hashes
	released bool

	// Per-batch scratch.
	hashes []uint64
	gids   []uint32
	iota   []uint32     // 0, 1, 2, …
	ins    []input      // per argument; the last is count(*)'s
	used   []bool       // per argument: an aggregate reads it
	pstart []int        // state i's partial columns are pstart[i]:pstart[i+1]
	pins   []input      // per partial column, when merging
	pbufs  [][]uint32   // non-NULL rows per partial column
	bufs   [][]uint32   // non-NULL rows per input
	few    *localGroups // the few-keys path's scratch (fewkeys.go)
	dense  *denseGroups // numbers the groups of one dense integer key (densegroup.go)
	dict   *dictScratch // the dictionary-encoded key's scratch (dictkeys.go)
	// Per state: its input when it has one of its own (filter.go).
	own     []input
	ownBufs [][]uint32
}

// NewHashAggregator returns an aggregator grouping by keys of keyTypes and
// computing specs over arguments of argTypes. Release it when done.
func NewHashAggregator(keyTypes, argTypes []arrow.DataType, specs []Spec, opts Options) (*HashAggregator, error) {
	for i, dt := range keyTypes {
		if !supported(dt) {
			return nil, fmt.Errorf("%w: key %d of type %v", ErrUnsupported, i, dt)
		}
	}
	for i, dt := range argTypes {
		if !supported(dt) {
			return nil, fmt.Errorf("%w: argument %d of type %v", ErrUnsupported, i, dt)
		}
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	h := &HashAggregator{
		mem:      opts.Mem,
		keyTypes: keyTypes,
		argTypes: argTypes,
		specs:    specs,
		acct:     account{limit: opts.MemoryLimit},
	}
	if h.mem == nil {
		h.mem = memory.DefaultAllocator
	}
	if err := h.build(); err != nil {
		h.Release()
		return nil, err
	}
	h.useDense(opts.Dense)
	return h, nil
}

// build makes the states, the table and the scratch of a new aggregator.
func (h *HashAggregator) build() error {
	keyTypes, argTypes, specs := h.keyTypes, h.argTypes, h.specs
	h.ins = make([]input, len(argTypes)+1)
	h.bufs = make([][]uint32, len(argTypes)+1)
	h.used = make([]bool, len(argTypes))
	h.seed = newSeed()
	h.names, h.states, h.stKeys, h.stNames, h.out = nil, nil, nil, nil, nil
	h.cols, h.tab = nil, nil
	for i, s := range specs {
		var dt arrow.DataType
		if s.Func != CountStar {
			if s.Arg < 0 || s.Arg >= len(argTypes) {
				return fmt.Errorf("%w: %s: argument %d of %d", ErrInput, s.name(i), s.Arg, len(argTypes))
			}
			dt = argTypes[s.Arg]
		}
		if s.Func < CountStar || s.Func > ApproxCountDistinct {
			return fmt.Errorf("%w: function %v", ErrUnsupported, s.Func)
		}
		if _, err := ResultType(s.Func, dt); err != nil {
			return fmt.Errorf("%s: %w", s.name(i), err)
		}
		if s.Func != CountStar {
			h.used[s.Arg] = true
		}
		if s.Func == ArgMin || s.Func == ArgMax || s.Func == First || s.Func == Last {
			if s.By < 0 || s.By >= len(argTypes) {
				return fmt.Errorf("%w: %s: argument %d of %d", ErrInput, s.name(i), s.By, len(argTypes))
			}
			if !supported(argTypes[s.By]) {
				return fmt.Errorf("%w: %s ordered by %v", ErrUnsupported, s.name(i), argTypes[s.By])
			}
			h.used[s.By] = true
		}
		if err := checkExtra(s, i, argTypes); err != nil { // filter.go
			return err
		}
		h.names = append(h.names, s.name(i))
		k := stateKey(s)
		j := slices.IndexFunc(h.stKeys, func(o Spec) bool { return sameState(o, k) })
		if j < 0 {
			j = len(h.states)
			var st state
			switch k.Func {
			case ArgMin, ArgMax:
				st = newArgState(&h.acct, k.Func == ArgMin, dt, argTypes[k.By], &h.ins[k.By])
			case First, Last:
				if argTypes[k.By].ID() != arrow.INT64 {
					return fmt.Errorf("%w: %s: position argument of type %v, want int64", ErrInput, s.name(i), argTypes[k.By])
				}
				st = &firstLastState{acct: &h.acct, first: k.Func == First, t: dt, pos: &h.ins[k.By]}
			default:
				st = newState(&h.acct, k, dt)
			}
			h.states = append(h.states, st)
			h.stKeys = append(h.stKeys, k)
			h.stNames = append(h.stNames, s.name(i))
		}
		h.out = append(h.out, j)
	}
	h.own = make([]input, len(h.states))
	h.ownBufs = make([][]uint32, len(h.states))
	h.pstart = make([]int, len(h.states)+1)
	for i, s := range h.states {
		h.pstart[i+1] = h.pstart[i] + len(s.partialTypes())
	}
	h.pins = make([]input, h.pstart[len(h.states)])
	h.pbufs = make([][]uint32, len(h.pins))
	if len(keyTypes) > 0 {
		for _, dt := range keyTypes {
			h.cols = append(h.cols, newKeyColumn(&h.acct, dt))
		}
		h.tab = newTable(&h.acct, h.cols)
	}
	return h.resetGlobal()
}

// Shrink drops every group and frees all the aggregator holds, leaving it
// as NewHashAggregator made it. After a spill Reset keeps the memory for
// the groups to come; Shrink is for when what Reset would keep leaves no
// room (scratch sized for larger batches, the buffers of Merge after
// those of Add).
func (h *HashAggregator) Shrink() error {
	if h.released {
		return errReleased
	}
	h.Release()
	h.released = false
	return h.build()
}

// resetGlobal gives an aggregator without keys its one group.
func (h *HashAggregator) resetGlobal() error {
	if h.tab != nil {
		return nil
	}
	for _, s := range h.states {
		if err := s.resize(1); err != nil {
			return err
		}
	}
	return nil
}

// Groups is the number of groups so far (1 without keys).
func (h *HashAggregator) Groups() int {
	if h.tab == nil {
		return 1
	}
	return h.tab.groups()
}

// MemoryUsage is the bytes held by the hash table, the keys, the states and
// the per-batch scratch: the capacity of every buffer, counted when it is
// allocated.
func (h *HashAggregator) MemoryUsage() int64 { return h.acct.used }

var errReleased = errors.New("agg: HashAggregator used after Release")

// Add folds a batch in: keys are the GROUP BY columns, args the aggregate
// arguments, all of the same length and of the types given to
// NewHashAggregator. With no keys every row is in one global group. On
// error the aggregator is as it was before the call.
func (h *HashAggregator) Add(keys, args []arrow.Array) error {
	if h.released {
		return errReleased
	}
	n, err := h.check(keys, args)
	if err != nil {
		return err
	}
	return h.add(n, keys, args, nil)
}

// AddRows folds n rows in for an aggregator with no keys and no arguments
// (count(*) alone), where Add has no column to take the row count from.
func (h *HashAggregator) AddRows(n int) error {
	if h.released {
		return errReleased
	}
	if len(h.keyTypes) > 0 || len(h.argTypes) > 0 || n < 0 {
		return fmt.Errorf("%w: AddRows(%d) with %d keys and %d arguments", ErrInput, n, len(h.keyTypes), len(h.argTypes))
	}
	for _, s := range h.states { // without arguments every aggregate is count(*)
		s.(*countState).counts[0] += int64(n)
	}
	return nil
}

// check validates a batch and returns its length.
func (h *HashAggregator) check(keys, args []arrow.Array) (int, error) {
	if len(keys) != len(h.keyTypes) || len(args) != len(h.argTypes) {
		return 0, fmt.Errorf("%w: %d keys and %d arguments, want %d and %d",
			ErrInput, len(keys), len(args), len(h.keyTypes), len(h.argTypes))
	}
	if len(keys)+len(args) == 0 {
		return 0, fmt.Errorf("%w: no columns to count rows in: use AddRows", ErrInput)
	}
	n := -1
	for j, a := range keys {
		want := h.keyTypes[j]
		if d, ok := a.DataType().(*arrow.DictionaryType); ok && arrow.TypeEqual(d.ValueType, want) {
			want = d // a dictionary of the key's type (dictkeys.go)
		}
		if err := checkColumn(a, want, "key", j, &n); err != nil {
			return 0, err
		}
	}
	for j, a := range args {
		if err := checkColumn(a, h.argTypes[j], "argument", j, &n); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// checkColumn checks a's type and that its length is *n (or sets *n).
func checkColumn(a arrow.Array, want arrow.DataType, what string, j int, n *int) error {
	if !arrow.TypeEqual(a.DataType(), want) {
		return fmt.Errorf("%w: %s %d is %v, want %v", ErrInput, what, j, a.DataType(), want)
	}
	if *n >= 0 && a.Len() != *n {
		return fmt.Errorf("%w: %s %d has %d rows, want %d", ErrInput, what, j, a.Len(), *n)
	}
	*n = a.Len()
	return nil
}

// add runs the two phases of a batch: group and prepare (allocating, undone
// on error), then update. partial holds each state's columns when merging.
func (h *HashAggregator) add(n int, keys, args []arrow.Array, partial [][]arrow.Array) error {
	old := h.Groups()
	if err := h.prepare(n, keys, args, partial); err != nil {
		h.truncate(old)
		return err
	}
	for i, s := range h.states {
		if partial != nil {
			s.merge(h.gids, h.partialIns(i))
		} else {
			s.update(h.gids, h.input(i))
		}
	}
	return nil
}

func (h *HashAggregator) prepare(n int, keys, args []arrow.Array, partial [][]arrow.Array) error {
	if err := h.group(n, keys); err != nil {
		return err
	}
	var err error
	if partial != nil {
		err = h.bindPartial(partial)
	} else {
		err = h.bindArgs(n, args)
	}
	if err != nil {
		return err
	}
	groups := h.Groups()
	for i, s := range h.states {
		if err := s.resize(groups); err != nil {
			return err
		}
		if partial != nil {
			err = s.prepareMerge(h.gids, h.partialIns(i))
		} else {
			err = s.prepare(h.gids, h.input(i))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// group sets h.gids[:n] to the group of each row, adding new groups.
func (h *HashAggregator) group(n int, keys []arrow.Array) error {
	var err error
	if h.gids, err = scratch(&h.acct, h.gids, n); err != nil {
		return err
	}
	if err := h.growIota(n); err != nil {
		return err
	}
	if h.tab == nil {
		clear(h.gids)
		return nil
	}
	if h.hashes, err = scratch(&h.acct, h.hashes, n); err != nil {
		return err
	}
	if len(keys) == 1 && h.dense == nil {
		if d, ok := keys[0].(*array.Dictionary); ok && d.Dictionary().Len() <= maxDictPerRow*max(n, 1) {
			return h.groupDictionary(n, d) // dictkeys.go
		}
	}
	keys, decoded, err := decodeKeys(h.mem, keys)
	if err != nil {
		return err
	}
	if decoded {
		defer releaseAll(keys)
	}
	for i := range h.hashes {
		h.hashes[i] = h.seed
	}
	for i, c := range h.cols {
		if err := c.bind(keys[i]); err != nil {
			return err
		}
	}
	rows := h.iota[:n]
	if h.dense != nil {
		// The index hashes only the rows that make groups (densegroup.go).
		if done, err := h.groupDense(n, keys[0]); done || err != nil {
			return err
		}
		for _, c := range h.cols {
			c.hash(h.hashes, rows)
		}
		return h.tab.insert(rows, h.hashes, h.gids)
	}
	if done, err := h.groupFew(n); done || err != nil {
		return err
	}
	for _, c := range h.cols {
		c.hash(h.hashes, rows)
	}
	return h.tab.insert(rows, h.hashes, h.gids)
}

func (h *HashAggregator) growIota(n int) error {
	if n <= len(h.iota) {
		return nil
	}
	iota, err := extend(&h.acct, h.iota, n-len(h.iota))
	if err != nil {
		return err
	}
	for i := range iota {
		iota[i] = uint32(i)
	}
	h.iota = iota
	return nil
}

// bindArgs prepares the inputs of a batch of n rows: one per argument an
// aggregate reads, and the last, all rows, for count(*).
func (h *HashAggregator) bindArgs(n int, args []arrow.Array) error {
	for i, a := range args {
		if !h.used[i] {
			continue
		}
		var err error
		if h.bufs[i], err = bindInput(&h.acct, &h.ins[i], a, h.iota, h.bufs[i]); err != nil {
			return err
		}
	}
	h.ins[len(args)] = input{rows: h.iota[:n], n: n, dense: true}
	return h.bindOwn(n, args) // filter.go
}

// input is the input state i reads.
func (h *HashAggregator) input(i int) *input {
	if ownInput(h.stKeys[i]) {
		return &h.own[i]
	}
	if h.stKeys[i].Func == CountStar {
		return &h.ins[len(h.argTypes)]
	}
	return &h.ins[h.stKeys[i].Arg]
}

// truncate drops groups from n on, undoing a failed batch (n = the count
// before it) or everything (n = 0).
func (h *HashAggregator) truncate(n int) {
	if h.tab != nil {
		h.tab.truncate(n)
	}
	if h.dense != nil {
		h.dense.truncate(n)
	}
	for _, s := range h.states {
		s.truncate(n)
	}
}

// Reset drops every group, keeping the memory for reuse (after a spill).
func (h *HashAggregator) Reset() error {
	if h.released {
		return errReleased
	}
	h.truncate(0)
	return h.resetGlobal()
}

// Release frees everything the aggregator holds. Arrays it returned stay
// valid.
func (h *HashAggregator) Release() {
	if h.released {
		return
	}
	h.released = true
	if h.tab != nil {
		h.tab.release()
	}
	if h.dense != nil {
		h.dense.release(&h.acct)
	}
	for _, s := range h.states {
		s.release()
	}
	h.hashes = drop(&h.acct, h.hashes)
	if h.few != nil {
		for i := range h.few.codes {
			h.few.codes[i] = drop(&h.acct, h.few.codes[i])
		}
		h.few.local = drop(&h.acct, h.few.local)
	}
	if h.dict != nil {
		h.dict.slot = drop(&h.acct, h.dict.slot)
		h.dict.used = drop(&h.acct, h.dict.used)
		h.dict.egids = drop(&h.acct, h.dict.egids)
	}
	h.gids = drop(&h.acct, h.gids)
	h.iota = drop(&h.acct, h.iota)
	for i := range h.bufs {
		h.bufs[i] = drop(&h.acct, h.bufs[i])
	}
	for i := range h.pbufs {
		h.pbufs[i] = drop(&h.acct, h.pbufs[i])
	}
	for i := range h.ownBufs {
		h.ownBufs[i] = drop(&h.acct, h.ownBufs[i])
	}
	h.ins, h.pins = nil, nil
}
