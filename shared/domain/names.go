package domain

// NameSource says where a name of an entity came from.
type NameSource string

const (
	// NameDeclared is the caller's legal_name at create.
	NameDeclared NameSource = "declared"
	// NameRegister is the register's legal name (in Saudi Arabia the
	// Arabic one, authoritative).
	NameRegister NameSource = "register"
	// NameRegisterLatin is the register's Latin form of the legal name,
	// where it gives one.
	NameRegisterLatin NameSource = "register_latin"
)

// EntityName is one name the business is known by, with where it came from.
type EntityName struct {
	Name   string
	Source NameSource
}

// NameSourceWords is how a page or a dossier says where a name came from.
func NameSourceWords(s NameSource) string {
	switch s {
	case NameDeclared:
		return "declared by the merchant"
	case NameRegister:
		return "the register's legal name"
	case NameRegisterLatin:
		return "the register's Latin name"
	}
	return string(s)
}
