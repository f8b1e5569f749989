"""A labelled set for search by meaning: notes an agent might keep, queries whose answer shares no
word with them (MEANING), and queries a text search answers (WORDS), each with the note it
should find. Used by tests (the labels hold) and benchmarks/meaning_bench.py (recall@5)."""

from __future__ import annotations

NOTES: dict[str, str] = {
    "vehicles/automobile.md": "# Automobile\n\nDrives a 2015 Volvo estate. Serviced each spring "
    "at the garage on Mill Road.\n",
    "prefs/display.md": "# Display preferences\n\nWants dark colours everywhere, low contrast, no "
    "bright white backgrounds.\n",
    "health/allergy.md": "# Allergy\n\nSevere reaction to peanuts; carries an epinephrine "
    "injector.\n",
    "family/daughter.md": "# Maya\n\nEldest child, turns nine in March, plays the violin.\n",
    "work/employer.md": "# Job\n\nSenior engineer at Northwind since 2021, reports to Priya.\n",
    "travel/flights.md": "# Flying\n\nPrefers aisle seats, hates red-eye departures, collects "
    "airline miles.\n",
    "diet/vegetarian.md": "# Eating\n\nNo meat or fish since 2019; eggs and dairy are fine.\n",
    "pets/dog.md": "# Biscuit\n\nA beagle, walked twice daily, scared of thunder.\n",
    "home/heating.md": "# Boiler\n\nThe furnace is serviced in October; thermostat set to 19 "
    "degrees.\n",
    "finance/budget.md": "# Spending plan\n\nMonthly limit of 400 on groceries; savings go to an "
    "index fund.\n",
    "health/sleep.md": "# Rest\n\nGoes to bed at 22:30, wakes at 6; insomnia after coffee.\n",
    "prefs/music.md": "# Listening\n\nLikes jazz piano and Brazilian bossa nova; dislikes heavy "
    "metal.\n",
    "work/meetings.md": "# Calls\n\nNo calls before 10am; standups are on Tuesdays and "
    "Thursdays.\n",
    "tech/laptop.md": "# Computer\n\nA ThinkPad X1 running Fedora, 32 GB memory.\n",
    "lang/spanish.md": "# Languages\n\nFluent in Spanish, learning Japanese with flashcards.\n",
    "sports/running.md": "# Jogging\n\nRuns 5 km three mornings a week; training for a half "
    "marathon.\n",
    "contacts/dentist.md": "# Dr Okafor\n\nTooth cleaning every six months, clinic on Elm "
    "Street.\n",
    "prefs/coffee.md": "# Espresso\n\nDrinks a flat white with oat milk, never sugar.\n",
    "projects/allotment.md": "# Allotment\n\nGrows tomatoes, beans and courgettes; compost bin by "
    "the shed.\n",
    "work/release.md": "# Q3 release\n\nThe launch is due on 30 September; code freeze two weeks "
    "before.\n",
    "prefs/writing.md": "# Style\n\nPrefers British spelling, short sentences, and no "
    "exclamation marks.\n",
    "family/parents.md": "# Mum and Dad\n\nLive in Leeds; ring them on Sundays.\n",
    "health/medication.md": "# Pills\n\nTakes 10 mg of lisinopril each morning for blood "
    "pressure.\n",
    "home/address.md": "# Where we live\n\nFlat 4, 12 Harbour Lane, Bristol BS1.\n",
    "travel/passport.md": "# Passport\n\nExpires in May 2027; renewal takes six weeks.\n",
    "tech/backup.md": "# Copies of files\n\nNightly snapshot to an external disk and weekly to "
    "cloud storage.\n",
    "prefs/reading.md": "# Books\n\nReads mostly science fiction and history on an e-reader.\n",
    "work/oncall.md": "# Pager duty\n\nOn call one week in six; escalation goes to the platform "
    "team.\n",
    "pets/cat.md": "# Miso\n\nA grey tabby, indoors only, eats wet food twice a day.\n",
    "finance/tax.md": "# HMRC\n\nSelf assessment due 31 January; keeps receipts in a folder.\n",
    "health/eyes.md": "# Vision\n\nShort-sighted, wears contact lenses, glasses at night.\n",
    "prefs/alerts.md": "# Alerts\n\nMute everything on weekends; only urgent pings from family.\n",
    "projects/kitchen.md": "# Renovation\n\nNew worktops and cabinets planned for spring; the "
    "builder is Tom.\n",
    "tech/credentials.md": "# Credentials\n\nUses a password manager; two-factor on every "
    "account.\n",
    "family/wedding.md": "# Anniversary\n\nMarried on 14 June 2014 in Cornwall.\n",
    "work/pay.md": "# Pay\n\nAnnual review in April; current compensation includes a bonus.\n",
    "hobbies/photography.md": "# Camera\n\nShoots film on a Leica; develops negatives at home.\n",
    "hobbies/chess.md": "# Chess\n\nPlays online blitz most evenings, rated about 1500.\n",
    "food/sourdough.md": "# Recipes\n\nBakes sourdough on Saturdays; the starter lives in the "
    "fridge.\n",
    "tech/mobile.md": "# Mobile\n\nAn iPhone 13, always on silent, in a battery case.\n",
    "travel/summer.md": "# Summer break\n\nBooked two weeks in Crete in August.\n",
    "work/team.md": "# Team\n\nPriya leads, Sam does design, Lee handles QA.\n",
    "prefs/wardrobe.md": "# Wardrobe\n\nWears plain navy shirts, no logos, size medium.\n",
    "health/counselling.md": "# Counselling\n\nSees a counsellor fortnightly about anxiety.\n",
    "finance/mortgage.md": "# Home loan\n\nFixed rate until 2026 with Nationwide.\n",
    "tech/vim.md": "# Vim\n\nEdits code in Neovim with a minimal config; hates using a mouse.\n",
    "hobbies/guitar.md": "# Strings\n\nPractises acoustic fingerstyle for twenty minutes daily.\n",
    "contacts/plumber.md": "# Leak fixer\n\nCall Dave for pipes and taps; he charges a call-out "
    "fee.\n",
    "prefs/sharing.md": "# Sharing\n\nNever post the children's photos online.\n",
    "work/stack.md": "# Stack\n\nBackend in Go, frontend in TypeScript, deploys with Kubernetes.\n",
    "health/glucose.md": "# Glucose\n\nType 2 diabetes; avoids sweets and checks levels after "
    "meals.\n",
    "home/chores.md": "# Chores\n\nA cleaner comes on Fridays; laundry is done on Mondays.\n",
    "hobbies/walks.md": "# Walks\n\nHill walking in the Peak District; owns waterproof boots.\n",
    "work/commute.md": "# Getting to the office\n\nCycles in on Mondays, takes trains the rest "
    "of the week.\n",
    "tech/lights.md": "# Lights\n\nBulbs controlled by a voice assistant; routines at sunset.\n",
    "prefs/presents.md": "# Presents\n\nLikes experiences over objects; no flowers.\n",
    "health/jabs.md": "# Jabs\n\nFlu shot every October; tetanus booster due 2028.\n",
    "finance/pension.md": "# Retirement\n\nContributes 8% into the workplace scheme.\n",
    "family/sister.md": "# Ana\n\nLives in Lisbon, works as a nurse, two sons.\n",
    "work/leave.md": "# Leave\n\n25 days of annual leave plus bank holidays; carry over up to "
    "five.\n",
}
"""Path -> text of each note."""

MEANING: list[tuple[str, str]] = [
    ("car maintenance", "vehicles/automobile.md"),
    ("interface theme", "prefs/display.md"),
    ("nut intolerance medicine", "health/allergy.md"),
    ("kid birthday", "family/daughter.md"),
    ("boss workplace", "work/employer.md"),
    ("plane trip habits", "travel/flights.md"),
    ("plant-based meals", "diet/vegetarian.md"),
    ("puppy exercise", "pets/dog.md"),
    ("house temperature", "home/heating.md"),
    ("household expenses investment", "finance/budget.md"),
    ("nighttime routine caffeine", "health/sleep.md"),
    ("favourite songs genre", "prefs/music.md"),
    ("appointment hours", "work/meetings.md"),
    ("notebook operating system", "tech/laptop.md"),
    ("bilingual study", "lang/spanish.md"),
    ("cardio fitness race", "sports/running.md"),
    ("teeth checkup", "contacts/dentist.md"),
    ("morning beverage", "prefs/coffee.md"),
    ("vegetable patch", "projects/allotment.md"),
    ("product ship date", "work/release.md"),
    ("tone grammar conventions", "prefs/writing.md"),
    ("mother father phone weekly", "family/parents.md"),
    ("hypertension drug", "health/medication.md"),
    ("residence location", "home/address.md"),
    ("identity document expiry", "travel/passport.md"),
    ("data redundancy", "tech/backup.md"),
    ("novels literature", "prefs/reading.md"),
    ("incident rotation", "work/oncall.md"),
    ("kitten feeding", "pets/cat.md"),
    ("yearly income return filing", "finance/tax.md"),
    ("optician spectacles", "health/eyes.md"),
    ("quiet interruptions", "prefs/alerts.md"),
    ("remodel cooking room", "projects/kitchen.md"),
    ("login security", "tech/credentials.md"),
    ("spouse marriage date", "family/wedding.md"),
    ("wage raise", "work/pay.md"),
    ("pictures lens", "hobbies/photography.md"),
    ("strategy board game", "hobbies/chess.md"),
    ("bread loaf yeast", "food/sourdough.md"),
    ("smartphone device", "tech/mobile.md"),
    ("vacation greece", "travel/summer.md"),
    ("coworkers roles", "work/team.md"),
    ("outfit apparel", "prefs/wardrobe.md"),
    ("mental wellbeing therapy", "health/counselling.md"),
    ("house borrowing interest", "finance/mortgage.md"),
    ("programming tool keyboard", "tech/vim.md"),
    ("instrument lessons", "hobbies/guitar.md"),
    ("water repair tradesman", "contacts/plumber.md"),
    ("kids images social media", "prefs/sharing.md"),
    ("programming languages infrastructure", "work/stack.md"),
    ("insulin sugar illness", "health/glucose.md"),
    ("housework washing", "home/chores.md"),
    ("trekking mountains", "hobbies/walks.md"),
    ("bike journey workplace", "work/commute.md"),
    ("automation lamps", "tech/lights.md"),
    ("gift ideas", "prefs/presents.md"),
    ("immunisation injections", "health/jabs.md"),
    ("later life savings", "finance/pension.md"),
    ("sibling hospital job", "family/sister.md"),
    ("time off allowance", "work/leave.md"),
]
"""(query, the note it should find): the query shares no word with that note."""

WORDS: list[tuple[str, str]] = [
    ("Volvo", "vehicles/automobile.md"),
    ("peanuts", "health/allergy.md"),
    ("beagle", "pets/dog.md"),
    ("lisinopril", "health/medication.md"),
    ("sourdough starter", "food/sourdough.md"),
    ("Crete", "travel/summer.md"),
    ("ThinkPad Fedora", "tech/laptop.md"),
    ("Neovim", "tech/vim.md"),
    ("Kubernetes", "work/stack.md"),
    ("Leica film", "hobbies/photography.md"),
    ("bossa nova", "prefs/music.md"),
    ("grey tabby", "pets/cat.md"),
    ("half marathon", "sports/running.md"),
    ("code freeze", "work/release.md"),
    ("oat milk", "prefs/coffee.md"),
    ("Nationwide", "finance/mortgage.md"),
    ("tetanus", "health/jabs.md"),
    ("flashcards", "lang/spanish.md"),
    ("Harbour Lane", "home/address.md"),
    ("counsellor anxiety", "health/counselling.md"),
]
"""(query, the note it should find): the query's words are in that note."""
