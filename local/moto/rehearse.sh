#!/usr/bin/env bash
# Runs moto's server for make rehearse: installs the pinned moto when it is
# missing (install.sh), then runs rehearse_server.py (moto with the fixes its
# CloudFormation needs) in its virtual environment, in this process (exec),
# with moto_server's arguments: rehearse.sh -H 127.0.0.1 -p PORT.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/install.sh"
exec "$moto_dir/bin/python" "$here/rehearse_server.py" "$@"
