"""The school around the questions: sign-in (auth), classes, rosters and assignments (classes), the
courses a student can choose (courses), a student's sittings (sittings) and mastery (progress)."""
