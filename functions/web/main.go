// Command web serves the web pages: the operator console under /console/ and the settings area under /settings/.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("web") }
