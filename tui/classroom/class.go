package classroom

import "fmt"

// Class is one explorer's part in the classroom (splitscope serve --teacher-key): the teacher's
// explorer reports its tour step and scenario (Lead); a student's follows them (LeadMsg) until
// the student changes a parameter or the tour step, and F follows again (Follow). The explorer
// only reports and receives messages: the server's hub holds what is shared.
type Class struct {
	Lead   func(Lead)   // the teacher's report
	Follow func(Follow) // a student's report
	// The step's question in class: a student's answers go to Answer, the teacher's R to
	// Reveal; Tally is the class's answers the teacher's caption shows.
	Answer func(Answer)
	Reveal func(Reveal)
	Tally  TallyMsg
	// Seq numbers this explorer's reports (the last one's).
	Seq       int
	Following bool
	// Teacher is the last LeadMsg (Have: one came); Moved says the teacher changed something
	// since this student stopped following.
	Teacher Lead
	Have    bool
	Moved   bool
	Counts  ClassMsg
}

// New is a class with the teacher's report (lead), a student's (follow: a student follows from
// the start) and the question's (answer, reveal); all nil outside a classroom.
func New(lead func(Lead), follow func(Follow), answer func(Answer), reveal func(Reveal)) Class {
	return Class{Lead: lead, Follow: follow, Following: follow != nil, Answer: answer, Reveal: reveal}
}

// On reports whether the explorer is in a classroom.
func (c *Class) On() bool { return c.Lead != nil || c.Follow != nil }

// FollowingStudent reports whether this is a student's explorer that follows the teacher.
func (c *Class) FollowingStudent() bool { return c.Follow != nil && c.Following }

// Next numbers the next report.
func (c *Class) Next() int {
	c.Seq++
	return c.Seq
}

// FollowReport is the student's report of whether it follows, numbered; nil for a teacher.
func (c *Class) FollowReport() (Follow, func(Follow)) {
	return Follow{Following: c.Following, Seq: c.Next()}, c.Follow
}

// OnLead takes the teacher's state and reports whether this explorer goes there: a teacher
// (another one acted) and a following student do; a student who wandered off keeps it for F.
func (c *Class) OnLead(l Lead) bool {
	if !c.Have || !SameLeadState(c.Teacher, l) {
		c.Moved = true
	}
	c.Teacher, c.Have = l, true
	return c.Lead != nil || c.Following
}

// Rejoin is F: the student follows again.
func (c *Class) Rejoin() { c.Following, c.Moved = true, false }

// Wander is the student's own change: it stops following.
func (c *Class) Wander() { c.Following, c.Moved = false, false }

// TallyOf is the class's answers to step: the last tally when it is that step's, else none yet
// (of as many students).
func (c *Class) TallyOf(step int) TallyMsg {
	if c.Tally.Step != step {
		return TallyMsg{Step: step, Of: c.Tally.Of}
	}
	return c.Tally
}

// CountsLine is the teacher's footer head: "12 follow · 20 connected"; false before the hub
// counted anyone or on a student's screen.
func (c *Class) CountsLine() (string, bool) {
	if c.Lead == nil || c.Counts.Connected <= 0 {
		return "", false
	}
	return fmt.Sprintf(" %d follow · %d connected", c.Counts.Following, c.Counts.Connected), true
}

// Wandered is what a student who wandered off reads in the footer: where the teacher is
// ("teacher is on step 3/9", "teacher is on this step" when the student came back there alone,
// onStep), or that the teacher changed the scenario; false for a teacher or a student who follows.
// steps is the tour's length (asked only when the teacher is on the tour).
func (c *Class) Wandered(onStep func(Lead) bool, steps func() int) (string, bool) {
	if c.Follow == nil || c.Following {
		return "", false
	}
	text := "you left the teacher's scenario"
	switch {
	case c.Have && c.Teacher.Tour && onStep(c.Teacher):
		text = "teacher is on this step" // came here: F follows on from it
	case c.Have && c.Teacher.Tour:
		text = fmt.Sprintf("teacher is on step %d/%d", c.Teacher.Step+1, steps())
	case c.Moved:
		text = "teacher changed the scenario"
	}
	return text, true
}
