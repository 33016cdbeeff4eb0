// Command splitscope models how a transformer splits across GPUs: tensor, context, expert,
// pipeline and data parallelism, their step time, bubble, communication and memory. The command line lives in
// tui/cli; see docs/architecture.md for its contract.
package main

import (
	"os"

	"github.com/splitscope/splitscope/tui/cli"
)

func main() { os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr)) }
