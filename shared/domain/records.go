package domain

// RecordsLockDays is the records bucket's default Object Lock retention
// (COMPLIANCE): five years, 1,827 days with the leap days five calendar
// years may hold. It is the shortest minimum any supported jurisdiction
// asks of records after a relationship ends (FATF Recommendation 11, EU
// AMLR Art. 77), so a default date never keeps an object past what EU law
// allows; longer rules (the Saudi AML Law's 10 years) are kept by legal
// holds and the retention work of issue #27.
const RecordsLockDays = 5*365 + 2
