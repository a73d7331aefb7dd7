package shuffle

import "fmt"

// DefaultBroadcastThreshold is Spark's spark.sql.autoBroadcastJoinThreshold.
const DefaultBroadcastThreshold = 10 << 20

// BuildSide is the join side Broadcast picks to send to every worker.
type BuildSide uint8

const (
	// BuildNone: shuffle both sides.
	BuildNone BuildSide = iota
	// BuildLeft: broadcast the left side.
	BuildLeft
	// BuildRight: broadcast the right side.
	BuildRight
)

func (s BuildSide) String() string {
	switch s {
	case BuildNone:
		return "none"
	case BuildLeft:
		return "left"
	case BuildRight:
		return "right"
	}
	return fmt.Sprintf("BuildSide(%d)", uint8(s))
}

// Broadcast decides from the two sides' total bytes (the sum of Totals)
// whether a join broadcasts one side, as Spark's JoinSelection with
// canBroadcastBySize: a side qualifies when its bytes are at most
// threshold (0 means 10 MiB; negative never broadcasts) and the join type
// lets it be the build side (canLeft, canRight: an inner join both, a
// left outer join only the right). Of two that qualify, the smaller is
// picked, the right one on a tie (Spark's getSmallerSide).
func Broadcast(leftBytes, rightBytes int64, canLeft, canRight bool, threshold int64) BuildSide {
	if threshold == 0 {
		threshold = DefaultBroadcastThreshold
	}
	l := canLeft && leftBytes >= 0 && leftBytes <= threshold
	r := canRight && rightBytes >= 0 && rightBytes <= threshold
	switch {
	case l && r && rightBytes <= leftBytes, r && !l:
		return BuildRight
	case l:
		return BuildLeft
	}
	return BuildNone
}
