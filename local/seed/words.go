package seed

// Word lists and people the demo data draws from.

var (
	saCores = []string{
		"Al Noor", "Al Amal", "Al Waha", "Al Safwa", "Al Masar", "Al Yamama", "Al Rawabi",
		"Al Bayan", "Al Majd", "Al Fajr", "Riyadh", "Jeddah", "Dammam", "Najd", "Hijaz",
		"Qassim", "Tabuk", "Gulf Horizon", "Desert Rose", "Red Sea", "Golden Palm",
		"Green Oasis", "Crescent", "Falcon", "Summit", "Silver Dune", "Blue Wave",
	}
	aeCores = []string{
		"Dubai", "Abu Dhabi", "Sharjah", "Emirates", "Marina", "Creek", "Palm", "Pearl",
		"Gulf Horizon", "Jumeirah", "Al Ain", "Corniche", "Saffron", "Dune", "Falcon",
	}
	sectors = []string{
		"Trading", "Logistics", "Contracting", "Food Industries", "Real Estate",
		"Medical Supplies", "Information Technology", "Consulting", "Transport", "Catering",
		"Textiles", "Building Materials", "Electronics", "Travel and Tourism",
		"Facility Management", "Printing", "Agriculture", "Security Services", "Marketing",
		"Engineering", "General Trading",
	}
	saSuffixes = []string{"Company", "Company", "Est.", "Est.", "Co. Ltd.", "LLC", "Holding Company", "Group"}
	aeSuffixes = []string{"LLC", "LLC", "L.L.C.", "FZE", "FZ-LLC", "DMCC"}

	// Names with characters that need escaping in Markdown, pinned to
	// positions below 120 so every demo set has them (whose screenings find
	// nothing: a listed name would take the place).
	specialNames = map[int]string{
		5:   "Smith & Sons | Holdings *Ltd*",
		29:  "Al_Bayan [Tech] Solutions Co.",
		53:  "`Backtick` & Partners #1 Trading",
		78:  "Star*Light <Media> Est.",
		100: `Pipe | Line \ Contracting_Est.`,
	}

	// arabicNames are Saudi entities' legal names in Arabic script, as the
	// Saudi register (Wathq's cr_name) gives them: a page shows them right
	// to left inside its left-to-right text (dir="auto"). Entity 2 is
	// Saudi, and its review open, near the top of the demo's queue.
	arabicNames = map[int]string{
		2: "مؤسسة الروابي للخدمات اللوجستية",
	}

	activities = []string{
		"Wholesale of food products",
		"Road freight transport",
		"General building construction",
		"Retail sale of electronics",
		"IT consulting and software development",
		"Import and export of building materials",
		"Medical equipment distribution",
		"Restaurant and catering services",
		"Real estate brokerage and management",
		"Travel agency services",
		"Facility cleaning and maintenance",
	}

	partyNames = []string{
		"Abdullah Al-Otaibi", "Fatimah Al-Zahrani", "Khalid Bin Saeed", "Mohammed Al-Ghamdi",
		"Aisha Rahman", "Yousef Al-Mutairi", "Hessa Al-Dosari", "Rashid Karim", "John O'Neill",
	}
)

type operator struct {
	id   int64
	name string
}

var operators = []operator{
	{101, "Noura Al-Harbi"},
	{102, "Omar Siddiqui"},
	{103, "Layla Haddad"},
	{104, "Faisal Al-Qahtani"},
	{105, "Sara Mansour"},
}
