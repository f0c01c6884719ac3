package sim

import "strings"

// The simulated register's names. The register, not the screening, is
// where the simulator still reads a number's last digit: a number ending
// in 1 is registered under the name of a listed party of the screening
// engine's dataset (local/screening/listed-parties.ftm.json), one ending in
// 2 under a near namesake of one; every other number under an invented name
// no listing resembles. What the screening then finds is the engine's
// reading of those names.

// listedRegisterNames are names of listed parties as the register writes
// them, each a hit for the engine (logic-v2 scores them 1.0): a party
// listed under its Arabic name, and a company owned or controlled by a
// designated party.
var listedRegisterNames = []string{
	"شركة المجد للزراعة",        // evs-co-al-majd (sanction)
	"Red Sea Maritime Holdings", // evs-co-red-sea-maritime (sanction.control)
}

// nearRegisterNames are near namesakes of a listed party: the engine scores
// them in the review band (0.74 and 0.80 against Desert Falcon Trading LLC,
// listed in the UAE: the register's jurisdiction costs a point), never a
// hit.
var nearRegisterNames = []string{
	"Desert Falcon Trading",
	"شركة الصقر الصحراوي للتجارة", // Desert Falcon Trading LLC's Arabic alias
}

// RegisterName is the register's legal name for a registration number (a
// number beginning 79 is the holding company RegisterParties names).
func RegisterName(id string) string {
	if strings.HasPrefix(id, "79") {
		return HoldingName
	}
	h := nameHash(id)
	switch OutcomeOf(id) {
	case Hit:
		return listedRegisterNames[h%len(listedRegisterNames)]
	case NeedsReview:
		return nearRegisterNames[h%len(nearRegisterNames)]
	}
	return InventedName(id)
}

// HoldingName is the company partner of the simulated register's parties.
const HoldingName = "شركة الأفق القابضة"

// InventedName is a stable invented name for a registration number, like
// no listed party's.
func InventedName(id string) string {
	words := []string{"Al Noor", "Riyadh", "Gulf Horizon", "Najd", "Red Sea", "Al Safwa", "Tihama", "Al Waha", "Jazan", "Qassim"}
	kinds := []string{"Trading Company", "Logistics Est.", "Contracting LLC", "Industries Co.", "Services Est."}
	h := nameHash(id)
	return words[h%len(words)] + " " + kinds[(h/7)%len(kinds)]
}

func nameHash(id string) int {
	sum := 0
	for _, c := range id {
		sum = sum*31 + int(c)
	}
	if sum < 0 {
		sum = -sum
	}
	return sum
}
