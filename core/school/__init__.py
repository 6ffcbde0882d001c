"""The school around the questions: sign-in (auth; passcode hashes in passcodes, students' PINs in pins,
slowing down wrong guesses in throttle), students' names and ids (names), classes, rosters and assignments
(classes), the courses a student can choose (courses), a student's sittings (sittings) and mastery (progress)."""
