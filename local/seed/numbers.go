package seed

import "fmt"

// Registration numbers come from a bijection of the position, so they are
// unique without bookkeeping: multiplying by a number coprime to the modulus
// permutes the residues. Demo uses positions below bulkOffset, Bulk positions
// from it, so the two never share a number.
const bulkOffset = 500_000_000

func saRegistration(pos int) string {
	const mod = 1_000_000_000
	x := (uint64(pos)*387_420_489 + 123_456_789) % mod // 3^18
	return fmt.Sprintf("7%09d", x)
}

func aeRegistration(pos int) string {
	const mod = 10_000_000
	x := (uint64(pos)*4_782_969 + 2_718_281) % mod // 3^14
	return fmt.Sprintf("CN-%07d", x)
}
