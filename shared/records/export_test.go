package records

// WithPageSize is r listing n entries a request, so that a test goes through
// several pages with a few keys.
func (r S3) WithPageSize(n int32) S3 {
	r.pageSize = n
	return r
}
