package store

// Internals the external tests check directly.
const FirstSideRound = firstSideRound

var (
	ReviewFromItem = reviewFromItem
	ItemFromImage  = itemFromImage
)
