package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/splitscope/splitscope/tui/boxtab"
	"github.com/splitscope/splitscope/tui/classroom"
	"github.com/splitscope/splitscope/tui/compare"
)

// The classroom (splitscope serve --teacher-key): the teacher's explorer reports its tour step
// and scenario (WithLead); a student's follows them (LeadMsg) until the student changes a
// parameter or the tour step, and F follows again (WithFollower). The explorer only reports and
// receives messages: the server's hub holds what is shared, so no explorer reads another's.

// The classroom's messages (tui/classroom), named here for the explorer's users (tui/serve).
type (
	Lead     = classroom.Lead
	LeadMsg  = classroom.LeadMsg
	ClassMsg = classroom.ClassMsg
	Follow   = classroom.Follow
)

// WithLead makes the explorer the teacher's: report is called, from a command (never inside
// Update), each time the user's own keys change the tour step, start or leave the tour, or
// change the scenario. LeadMsg from another teacher's session moves it too: the last teacher to
// act leads.
func WithLead(report func(Lead)) Option {
	return func(o *options) { o.lead = report }
}

// WithFollower makes the explorer a student's: it follows LeadMsg from the start, stops when
// the user changes a parameter or the tour step, and F follows again; report is called, from a
// command, each time that changes.
func WithFollower(report func(Follow)) Option {
	return func(o *options) { o.follow = report }
}

// classUpdate is Update in a classroom: LeadMsg and ClassMsg, F, and after the user's own input
// the teacher's report or a student's wandering off.
func (m Model) classUpdate(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case LeadMsg:
		return m.onLead(Lead(msg))
	case ClassMsg:
		m.class.Counts = msg
		return m, nil
	case RevealMsg:
		return m.onReveal(msg), nil
	case TallyMsg:
		m.class.Tally = msg
		return m, nil
	case tea.KeyMsg:
		if !m.editing && !m.helpOpen && m.sheet == nil && key.Matches(msg, m.activeKeys().Follow) {
			return m.rejoin()
		}
		if !m.editing && !m.helpOpen && m.sheet == nil && key.Matches(msg, m.activeKeys().Reveal) {
			return m.revealAll()
		}
	case tea.MouseMsg, boxtab.UseBoxMsg, compare.TakeBetterMsg:
	default:
		return m.update(msg) // not the user's doing: a result, a tick, a size
	}
	next, cmd := m.update(msg)
	n, ok := next.(Model)
	if !ok {
		return next, cmd
	}
	cmd = tea.Batch(cmd, n.reportAnswer(m))
	if sameLead(m, n) {
		return n, cmd
	}
	switch {
	case n.class.Lead != nil:
		l, report := n.leadNow(), n.class.Lead
		l.Seq = n.class.Next()
		return n, tea.Batch(cmd, func() tea.Msg { report(l); return nil })
	case n.class.Following:
		n.class.Wander()
		return n, tea.Batch(cmd, n.reportFollow())
	}
	return n, cmd
}

// leadNow is what this explorer shows, as a Lead.
func (m Model) leadNow() Lead {
	l := Lead{Tour: m.tour.on, Scenario: m.cur}
	if m.tour.on {
		l.Step = m.tour.at
	}
	return l
}

// sameLead reports whether a and b show the same tour step and scenario.
func sameLead(a, b Model) bool {
	la, lb := a.leadNow(), b.leadNow()
	return la.Tour == lb.Tour && la.Step == lb.Step && la.Scenario == lb.Scenario
}

func (m *Model) reportFollow() tea.Cmd {
	f, report := m.class.FollowReport()
	return func() tea.Msg { report(f); return nil }
}

// onLead takes the teacher's state: a teacher (another one acted) and a following student go
// there; a student who wandered off keeps it for F.
func (m Model) onLead(l Lead) (tea.Model, tea.Cmd) {
	if m.class.OnLead(l) {
		return m.goTo(l)
	}
	return m, nil
}

// rejoin is F: the student follows again and goes to the teacher's state.
func (m Model) rejoin() (tea.Model, tea.Cmd) {
	m.class.Rejoin()
	report := m.reportFollow()
	if !m.class.Have {
		return m, report
	}
	next, cmd := m.goTo(m.class.Teacher)
	return next, tea.Batch(report, cmd)
}

// goTo shows l: the tour started, moved or left, then the scenario, evaluated once more only
// when it is not the step's own.
func (m Model) goTo(l Lead) (tea.Model, tea.Cmd) {
	var next tea.Model = m
	var tourCmd tea.Cmd
	switch {
	case l.Tour && !m.tour.on:
		next, tourCmd = m.startTourAt(l.Step)
	case l.Tour:
		next, tourCmd = m.tourStep(l.Step)
	case m.tour.on:
		next, tourCmd = m.leaveTour()
	}
	n := next.(Model)
	if n.cur == l.Scenario {
		return n, tourCmd
	}
	n.cur, n.offer, n.moved = l.Scenario, nil, ""
	n.editing, n.inputErr = false, ""
	n.editInput().Blur()
	next, evalCmd := n.changed()
	return next, tea.Batch(tourCmd, evalCmd)
}

// classLine heads the footer's key line in a classroom: the teacher's counts, or where the
// teacher is for a student who wandered off; "" otherwise.
func (m *Model) classLine() string {
	if text, ok := m.class.CountsLine(); ok {
		return m.styles.Bold.Render(text) + m.styles.Dim.Render(" ·")
	}
	onStep := func(t Lead) bool { return m.tour.on && m.tour.at == t.Step && m.cur == t.Scenario }
	steps := func() int { s, _ := m.tourSteps(); return len(s) }
	if text, ok := m.class.Wandered(onStep, steps); ok {
		return m.styles.Warn.Render(" "+text+" · F to follow") + m.styles.Dim.Render(" ·")
	}
	return ""
}

// withClassLine puts the classroom's line before a footer line of at most w cells.
func (m *Model) withClassLine(line func(w int) string, w int) string {
	head := m.classLine()
	if head == "" {
		return line(w)
	}
	return ansi.Truncate(head+line(max(w-ansi.StringWidth(head), 1)), w, "…")
}
