package country

import "testing"

func TestCatalogue(t *testing.T) {
	cat := ISO()
	tests := []struct {
		code    string
		ok      bool
		numeric int
	}{
		{"SA", true, 682},
		{"sa", true, 682},
		{" Ae ", true, 784},
		{"GB", true, 826},
		{"US", true, 840},
		{"XX", false, 0},
		{"", false, 0},
		{"SAU", false, 0},
	}
	for _, tt := range tests {
		got, ok := cat.ByAlpha2(tt.code)
		if ok != tt.ok || got.Numeric != tt.numeric {
			t.Errorf("ByAlpha2(%q) = %+v, %v; want numeric %d, %v", tt.code, got, ok, tt.numeric, tt.ok)
		}
	}
	if got, ok := cat.ByNumeric(682); !ok || got.Alpha2 != "SA" || got.Name == "" {
		t.Errorf("ByNumeric(682) = %+v, %v", got, ok)
	}
	// ISO 3166-1 has 249 officially assigned codes.
	if n := cat.Len(); n < 245 || n > 260 {
		t.Errorf("catalogue has %d countries, want about 249", n)
	}
}

func TestByName(t *testing.T) {
	c := ISO()
	tests := []struct{ name, want string }{
		{"Saudi Arabia", "SA"}, {"Saudi", "SA"}, {"Egypt", "EG"}, {"United Arab Emirates", "AE"}, {"Indian", "IN"},
		{"Egyptian", ""}, {"", ""}, {"Atlantis", ""},
	}
	for _, tt := range tests {
		got, ok := c.ByName(tt.name)
		if got.Alpha2 != tt.want || ok != (tt.want != "") {
			t.Errorf("ByName(%q) = %q, %v; want %q", tt.name, got.Alpha2, ok, tt.want)
		}
	}
}
