"""Writes yente's manifest for the local screening engine.

    manifest.py DATASET.ftm.json OUT.json

The manifest (JSON, which yente reads as it reads YAML) declares one
dataset to index, evs_listed_parties, whose entities are the lines of
DATASET (an absolute path: yente resolves it as a file URL), and the
`default` collection over it that /match/default screens against. Each
entity names the lists it comes from in its `datasets` (us_ofac_sdn,
eu_fsf, ...); yente keeps only the names of the indexed dataset and its
children, so every list named in the file is declared as a child (not
loaded itself): a result then says which list it is on, as on the hosted
API. Run by local/screening/engine.sh with yente's Python, on every start.
"""

import json
import os
import sys
from datetime import datetime, timezone

# Titles of the lists the dataset names; others are titled by their name.
TITLES = {
    "us_ofac_sdn": "US OFAC Specially Designated Nationals (fictional extract)",
    "eu_fsf": "EU Financial Sanctions Files (fictional extract)",
    "gb_hmt_sanctions": "UK HM Treasury Consolidated List (fictional extract)",
    "un_sc_sanctions": "UN Security Council Consolidated List (fictional extract)",
    "us_bis_denied": "US BIS Denied Persons List (fictional extract)",
    "wb_debarred": "World Bank Debarred Firms and Individuals (fictional extract)",
    "evs_peps": "EVS politically exposed persons (fictional)",
    "evs_crime_notices": "EVS criminal notices (fictional)",
    "evs_regulator_warnings": "EVS regulator warnings (fictional)",
    "evs_fixtures": "EVS test fixtures",
}

COLLECTION = "evs_listed_parties"


def main(dataset: str, out: str) -> None:
    path = os.path.abspath(dataset)
    lists = set()
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                entity = json.loads(line)
            except ValueError as exc:
                sys.exit(f"manifest.py: {path}:{no}: not JSON: {exc}")
            for key in ("id", "schema", "properties"):
                if key not in entity:
                    sys.exit(f"manifest.py: {path}:{no}: entity without {key!r}")
            lists.update(entity.get("datasets", []))
    lists.discard(COLLECTION)
    # When the file last changed: yente versions the index by it (a changed
    # file is indexed anew), and records it as the index's last_export (else
    # it warns, every minute, that there is none).
    changed = datetime.fromtimestamp(os.stat(path).st_mtime, tz=timezone.utc)
    manifest = {
        "datasets": [
            {
                "name": COLLECTION,
                "title": "EVS listed parties (fictional, local/screening/listed-parties.ftm.json)",
                "path": path,
                "last_export": changed.isoformat(timespec="seconds"),
                "load": True,
                "children": sorted(lists),
            },
            *[
                {"name": name, "title": TITLES.get(name, name), "load": False}
                for name in sorted(lists)
            ],
            {"name": "default", "title": "Default (every list)", "children": [COLLECTION]},
        ]
    }
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: manifest.py DATASET.ftm.json OUT.json")
    main(sys.argv[1], sys.argv[2])
