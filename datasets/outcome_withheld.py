"""The ``withheld`` part of the generated outcome set (issue #37): a third held-apart part.

Written on 2026-11-29, before any run of ``memmaint eval outcomes --part withheld``, by an
author who had not read the retrieval ranking (``maintenance/retrieve/``); to be run once per
mode and never tuned on (docs/evaluation.md). Same shape and sizes as ``sealed`` (16 needs and
6 stale-only topics per seed, each topic with a control twin, two seeds, one shared namespace
per seed) but four domains none of the other parts uses: bicycle repair (``bicycle``), home
insurance (``insurance``), music production (``music``) and an employer's HR desk (``hr``),
four needs each, so every need shares its namespace with three needs of its own domain.

The tuples have the layout of :mod:`memmaint.datasets.outcome_devset`'s tables, which merges
them in under ``"withheld"``; :func:`~memmaint.datasets.outcome_devset.load_devset` seeds them
apart like the other parts (``random.Random(f"withheld-{seed}")``).
"""

from __future__ import annotations

# (domain, query, good, bad): the failed advice echoes the query more or less (the last need
# of each domain echoes little), the two advices share more or fewer words.
NEEDS: list[tuple[str, str, str, str]] = [
    ("bicycle", "Why do the disc brakes on my {a} squeal when I stop?",
     ("Oil on the pads or rotor makes them squeal; clean the rotor with isopropyl alcohol and "
      "replace pads that have soaked it up."),
     ("The disc brakes on your {a} squeal when you stop because they are still new; keep "
      "riding and the squeal will stop by itself.")),
    ("bicycle", "How often should I oil the chain on my {a}?",
     ("Wipe the chain and oil it every 300 km or after a wet ride, then wipe the excess oil "
      "off so it does not collect grit."),
     ("Oil the chain on your {a} before every ride; the more oil on the chain, the longer "
      "the chain lasts.")),
    ("bicycle", "The gears on my {a} skip when I pedal hard, how do I fix it?",
     ("A worn chain slips on a worn cassette under load; measure the chain with a wear gauge "
      "and replace the chain, and the cassette if it is worn too."),
     ("When the gears on your {a} skip as you pedal hard, tighten the gear cable barrel "
      "adjuster all the way.")),
    ("bicycle", "What tyre pressure should I run on my {a}?",
     ("Go by rider weight and width: start in the middle of the range printed on the "
      "sidewall and check it weekly with a gauge."),
     "Always run the maximum printed on the tyre; harder tyres roll faster and never puncture."),
    ("insurance", "Will my {a} insurance pay for a burst pipe?",
     ("Escape of water is usually covered, but finding the leak may not be; call the claims "
      "line before any repair and keep every invoice."),
     ("Your {a} insurance will pay for a burst pipe in full; get the burst pipe fixed and "
      "send the insurance the bill afterwards.")),
    ("insurance", "How do I make a claim on my {a} insurance after a break-in?",
     ("Report the burglary to the police first and get a crime reference number; the insurer "
      "asks for it with photos and receipts of what was taken."),
     ("To make a claim on your {a} insurance after a break-in, write the insurer a list of "
      "what is missing after the break-in.")),
    ("insurance", "Does my {a} policy cover my laptop when I take it outside the house?",
     ("Only with the optional personal possessions add-on; the base policy covers items "
      "inside the home."),
     ("Yes, your {a} policy covers your laptop everywhere outside the house, just as it "
      "covers it inside the house.")),
    ("insurance", "Why did my {a} insurance premium go up at renewal?",
     ("Loyal customers are often quoted more than new ones; get comparison quotes a month "
      "early and ask your provider to match the best."),
     "Premiums go up for everyone this year; nothing can be done, so just renew."),
    ("music", "Why does my {a} mix sound muddy?",
     ("A muddy mix has energy piling up around 200-400 Hz; high-pass the guitars and pads and cut the low "
      "mids where the instruments overlap."),
     ("Your {a} mix sounds muddy because it is too quiet; push the master fader of the {a} "
      "mix up until it sounds clear.")),
    ("music", "How loud should I master my {a} for streaming?",
     ("Around -14 LUFS integrated with true peaks under -1 dBTP; the streaming services turn "
      "louder masters down anyway."),
     ("Master your {a} for streaming as loud as it will go; a louder master always sounds "
      "better on streaming.")),
    ("music", "How do I get rid of clicks when I edit the vocals on my {a}?",
     ("Cut at zero crossings and put a short fade of a few milliseconds on every edit."),
     ("To get rid of clicks when you edit the vocals on your {a}, turn the vocals down "
      "wherever a click is.")),
    ("music", "My audio interface crackles while I record the {a}, what should I do?",
     ("Raise the buffer size to 256 or 512 samples while tracking and quit the other "
      "programs; lower it again for mixing."),
     "Crackling means the audio interface is faulty; send it back and buy another one."),
    ("hr", "Can I carry unused holiday over to next year at the {a}?",
     ("Up to five days carry over if your manager approves them in the leave tool before "
      "31 December; the rest lapses."),
     ("Yes, at the {a} all unused holiday carries over to next year automatically, you do "
      "not need to do anything.")),
    ("hr", "How do I claim back travel expenses at the {a}?",
     ("Submit the receipts in the expenses app within 30 days; once your manager approves, "
      "they are paid with the next salary."),
     ("To claim back travel expenses at the {a}, email the travel receipts to someone in "
      "finance and wait for the money.")),
    ("hr", "What do I do if my payslip from the {a} is wrong?",
     ("Open a payroll ticket before the 20th with the payslip attached; the correction comes "
      "with next month's pay."),
     ("If your payslip from the {a} is wrong, do nothing; a wrong payslip corrects itself "
      "the next month.")),
    ("hr", "How much notice do I have to give if I leave the {a}?",
     ("Your contract sets it, usually one month once probation is over; the signed copy is "
      "in the HR portal."),
     "No notice is needed; if you leave you can simply stop coming in."),
]

# Two other wordings per need, aligned with NEEDS (the serve history behind the counters);
# written once and left as written: their cosine to the evaluated query was measured only
# after every text of the part was final (docs/evaluation.md).
ASKED: list[tuple[str, str]] = [
    ("Squeaky brakes on the {a}",
     "The {a} makes a loud screech every time I brake"),
    ("Chain lubrication interval for a {a}",
     "When does the {a} chain need oil?"),
    ("The {a} jumps gears going uphill",
     "Chain slipping on the {a} when I stand on the pedals"),
    ("Right tyre pressure for a {a}",
     "How many bar should the {a} tyres have?"),
    ("A pipe burst at home, does the {a} cover pay for it?",
     "Water leak damage on a {a} insurance claim"),
    ("We were burgled, how do I claim on the {a} insurance?",
     "Stolen things after a burglary, what does the {a} insurer need?"),
    ("Is my laptop insured away from home on the {a} cover?",
     "Laptop stolen in a cafe, will the {a} insurance pay?"),
    ("The {a} insurance renewal quote is much higher than last year",
     "Renewal price for the {a} cover jumped, why?"),
    ("The low end of my {a} is a mess",
     "Everything sounds boomy and unclear in the {a}"),
    ("Target loudness for the {a} on Spotify",
     "What LUFS should the {a} master have?"),
    ("Pops at the edit points in the {a} vocal take",
     "Clicking noises after comping vocals for the {a}"),
    ("Crackling audio while tracking the {a}",
     "Pops and dropouts from the interface when recording the {a}"),
    ("Do leftover vacation days at the {a} roll over?",
     "Unused annual leave at the {a} at the end of the year"),
    ("Getting reimbursed for a work trip at the {a}",
     "Where do I send {a} travel receipts?"),
    ("My {a} salary slip has a mistake",
     "Wrong amount on my {a} pay statement"),
    ("Notice period for resigning from the {a}",
     "I want to quit the {a}, how long do I have to stay?"),
]

SLOTS: dict[str, list[tuple[str, str]]] = {
    "bicycle": [("road bike", ""), ("cargo e-bike", "")],
    "insurance": [("contents", ""), ("home", "")],
    "music": [("synth-pop single", ""), ("acoustic demo", "")],
    "hr": [("Lisbon office", ""), ("Rotterdam warehouse", "")],
}

# (domain, kind, query, stale answer, fresh answer, loosely related note)
TOPICS: list[tuple[str, str, str, str, str, str]] = [
    ("bicycle", "availability", "Does the bike shop have an inner tube for the {a} in stock?",
     "The bike shop has inner tubes for the {a} in stock.",
     "Inner tubes for the {a} are out of stock at the bike shop until next week.",
     "The bike shop runs a free puncture repair class in the spring."),
    ("insurance", "price", "What is the yearly premium of the {a} policy?",
     "The {a} policy costs 180 pounds a year.",
     "The {a} policy costs 214 pounds a year from this renewal.",
     "The insurer's claims line is open day and night."),
    ("music", "availability", "Is the recording studio free on Friday to record the {a}?",
     "The recording studio is free on Friday for the {a}.",
     "The recording studio is fully booked on Friday; the {a} session has to move.",
     "The studio has a grand piano and a separate vocal booth."),
    ("hr", "schedule", "On which day is payday at the {a} this month?",
     "Payday at the {a} is on the 25th.",
     "Payday at the {a} is on the 27th this month because of the bank holiday.",
     "Staff at the {a} can read their payslips in the HR portal."),
    ("bicycle", "schedule", "When does the weekly group ride for {a} riders start?",
     "The weekly group ride for {a} riders starts on Sunday at 09:00.",
     "The weekly group ride for {a} riders moved to Saturday at 08:30.",
     "Helmets are required on every club ride."),
    ("music", "price", "How much does the mastering engineer charge for the {a}?",
     "Mastering the {a} costs 60 euros.",
     "Mastering the {a} costs 75 euros since the engineer's new rates.",
     "The mastering engineer sends back a WAV and an MP3 of every master."),
]
