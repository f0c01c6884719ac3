// Command settings serves the settings area's web pages under /settings/.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("settings") }
