// Package classroom is the explorer's classroom room: the messages a served class exchanges
// (the teacher's Lead, a student's Follow and Answer, the teacher's Reveal, the hub's counts
// and tally) and the pure logic of the tour's questions in class and alone (the quantity a
// question asks for, answer parsing, the teacher's tally line, the reveal line). Its functions
// take small explicit inputs (the step's question, the report's numbers, widths, the
// language's texts) and hold no explorer state; package tui keeps the glue.
package classroom

import "github.com/splitscope/splitscope/model"

// Lead is what the teacher's explorer shows, which following students show too.
type Lead struct {
	// Tour says the guided tour is on; Step is its step, from 0.
	Tour bool
	Step int
	// Scenario is the teacher's current scenario (in the tour, the step's, or what the teacher
	// typed over it).
	Scenario model.Scenario
	// Seq numbers one explorer's reports in the order of its changes, from 1: reports run in
	// commands, which may run in any order, so a receiver keeps only the highest it has seen.
	Seq int
}

// SameLeadState reports whether a and b put a follower in the same place: the same tour step
// (or both off the tour) and the same scenario.
func SameLeadState(a, b Lead) bool {
	return a.Tour == b.Tour && (!a.Tour || a.Step == b.Step) && a.Scenario == b.Scenario
}

// LeadMsg gives a served explorer the teacher's state: a student who follows goes there (a
// student connecting mid-lesson too), one who wandered off keeps it for F and the footer.
type LeadMsg Lead

// ClassMsg gives the teacher's explorer the class's counts for its footer: the students who
// follow and the sessions connected (teachers included).
type ClassMsg struct{ Following, Connected int }

// Follow is a student's explorer saying whether it follows the teacher (Seq as in Lead).
type Follow struct {
	Following bool
	Seq       int
}

// The step's question in class: a following student's answer goes to the hub and does not
// reveal the step's numbers; the teacher's caption shows the class's answers as they come
// (TallyMsg), and the teacher's R reveals them to everyone who follows (RevealMsg). A student
// who wandered off answers and reveals alone, as the local explorer does.

// Answer is a student's answer to the question of tour step Step: Choice (from 0) for a choice
// question, -1 and Number for a number question; Seq as in Lead.
type Answer struct {
	Step   int
	Choice int
	Number float64
	Seq    int
}

// Reveal is the teacher's R on tour step Step (Seq as in Lead). Tally is the step's question and
// the class's answers beside the model's, as the teacher's caption shows them, in plain text
// for the server's log: "step 2/9 · 8 stages, …: how much of the step is bubble? · 18 answered
// of 20: about 10% ×3 · about half ×12 · almost all of it ×3 · model: 3 almost all of it".
type Reveal struct {
	Step  int
	Seq   int
	Tally string
}

// RevealMsg reveals tour step Step's numbers to a student who follows and is on that step.
type RevealMsg struct{ Step int }

// TallyMsg gives the teacher's explorer the class's answers to tour step Step: Answered of Of
// students; Choices counts each choice (index from 0, possibly shorter than the question's
// choices); Numbers are the numbers answered, sorted; Revealed says the teacher revealed it.
type TallyMsg struct {
	Step         int
	Answered, Of int
	Choices      []int
	Numbers      []float64
	Revealed     bool
}

// Count is how many took choice i (from 0), 0 past the counted ones.
func (t TallyMsg) Count(i int) int {
	if i >= 0 && i < len(t.Choices) {
		return t.Choices[i]
	}
	return 0
}
