package store

// Internals the external tests check directly.
var (
	ReviewFromItem = reviewFromItem
	ItemFromImage  = itemFromImage
)
