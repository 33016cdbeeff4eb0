package tui

import (
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
)

// Run starts the explorer on the alternate screen and returns when the user quits. Bubble Tea
// restores the terminal on every exit it handles: quit, ctrl+c, SIGTERM and a panic in Update
// or View (commands recover their own panics into an error shown on screen). The Box tab probes
// this machine with gpu.Probe unless an option says otherwise (WithProbe: a saved box).
func Run(s model.Scenario, p *assets.Presets, opts ...Option) error {
	if os.Getenv("NO_COLOR") != "" {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	opts = append([]Option{WithProbe(gpu.Probe)}, opts...)
	prog := tea.NewProgram(New(s, p, opts...), tea.WithAltScreen(), tea.WithMouseCellMotion())
	_, err := prog.Run()
	return err
}
