"""Session flows: state machines whose every event is stored before the flow moves on, so a reload,
a second tab or a restart resumes exactly. The runner and flow base (base, registry), rapid-fire and
adaptive practice (practice), lessons (lesson), mock exams (exam; their papers planned and filled in
exam_plan from what exam_supply says a student can still be given), evaluations from assessment
blueprints (evaluation), exit-ticket surveys (survey), choosing the next question (fetch) and the
remediation after a wrong answer (remediation)."""
