"""Vocabulary and grammar of the ``mtg`` pool: a Magic: The Gathering deck-building assistant.

Latent instructions are card synergies, archetype game plans, mana bases, sideboard plans,
matchups, card evaluations, meta threats, mulligan rules and sequencing tips. The subject
spaces are composed from the archetype and card tables below (sideboard plans and matchups
are archetype x opponent pairs), so there are several hundred distinct subjects.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from memmaint.datasets.grammar import Entity, Family, Style, Vocabulary


def C(name: str, *aliases: str, tags: tuple[str, ...] = ()) -> Entity:
    return Entity(name, aliases, tags)


@dataclass(frozen=True)
class Archetype:
    card: Entity  # the archetype as a nameable thing
    fmt: str
    colors: str
    cards: tuple[Entity, ...]  # core first, flex slots last
    plan: tuple[str, ...]  # synonyms of its game plan (verb phrase)
    turn: int
    lands: int
    fetch: int
    key_land: Entity
    mull: tuple[str, ...]  # what a keepable hand needs
    weak: tuple[str, ...]  # hate tags that hurt it


# -- cards --------------------------------------------------------------------------------
BOLT = C("Lightning Bolt", "Bolt")
RAGAVAN = C("Ragavan, Nimble Pilferer", "Ragavan", "the monkey")
DRC = C("Dragon's Rage Channeler", "DRC", "Channeler")
MURKTIDE = C("Murktide Regent", "Murktide", "the Regent")
EI = C("Expressive Iteration", "Iteration", "EI")
CONSIDER = C("Consider", "Considers")
COUNTER = C("Counterspell", "Counterspells", "Counter")
HEAT = C("Unholy Heat", "Heat")
PIERCE = C("Spell Pierce", "Pierce")
GRIEF = C("Grief", "evoked Grief")
FURY = C("Fury", "evoked Fury")
MALICE = C("Undying Malice", "Malice")
NDAA = C("Not Dead After All", "NDAA")
SEIZE = C("Thoughtseize", "Seize")
HAMMER = C("Colossus Hammer", "the Hammer", "Colossus")
AID = C("Sigarda's Aid", "Aid")
PALADIN = C("Puresteel Paladin", "Puresteel", "Paladin")
SAGA = C("Urza's Saga", "Saga")
SFM = C("Stoneforge Mystic", "Stoneforge", "SFM")
AMULET = C("Amulet of Vigor", "Amulet")
TITAN = C("Primeval Titan", "Prime Time", "Titan")
DRYAD = C("Dryad of the Ilysian Grove", "Dryad")
PACT = C("Summoner's Pact", "Pact")
OUTBURST = C("Violent Outburst", "Outburst")
LIVING_END = C("Living End", "the Living End cascade")
ARCHITECTS = C("Architects of Will", "Architects")
SHARDLESS = C("Shardless Agent", "Shardless")
FON = C("Force of Negation", "FoN", "Force")
SWIFTSPEAR = C("Monastery Swiftspear", "Swiftspear")
GUIDE = C("Goblin Guide", "Guide")
EIDOLON = C("Eidolon of the Great Revel", "Eidolon")
SKEWER = C("Skewer the Critics", "Skewer")
BCHARM = C("Boros Charm", "Charm")
YAWG = C("Yawgmoth, Thran Physician", "Yawgmoth", "Yawg")
WOLF = C("Young Wolf", "Wolf")
CHORD = C("Chord of Calling", "Chord")
ARTIST = C("Blood Artist", "Artist")
GRIST = C("Grist, the Hunger Tide", "Grist")
OMNATH = C("Omnath, Locus of Creation", "Omnath")
W6 = C("Wrenn and Six", "W6", "Wrenn")
SOLITUDE = C("Solitude", "evoked Solitude")
ENDING = C("Prismatic Ending", "Ending")
TEFERI = C("Teferi, Time Raveler", "Teferi", "T3feri")
OCELOT = C("Ocelot Pride", "Ocelot")
GUIDE_SOULS = C("Guide of Souls", "Guide of Souls")
PHLAGE = C("Phlage, Titan of Fire's Fury", "Phlage")
AJANI = C("Ajani, Nacatl Pariah", "Ajani")
DISCHARGE = C("Galvanic Discharge", "Discharge")
GORYO = C("Goryo's Vengeance", "Goryo's")
ATRAXA = C("Atraxa, Grand Unifier", "Atraxa")
EPHEMERATE = C("Ephemerate", "Ephemerates")
MENDING = C("Faithful Mending", "Mending")
KARN = C("Karn Liberated", "Karn")
WURM = C("Wurmcoil Engine", "Wurmcoil")
UGIN = C("Ugin, the Spirit Dragon", "Ugin")
MAP = C("Expedition Map", "Map")
SCRYING = C("Sylvan Scrying", "Scrying")
FROG = C("Psychic Frog", "Frog")
BOWMASTERS = C("Orcish Bowmasters", "Bowmasters")
PUSH = C("Fatal Push", "Push")
SCION = C("Scion of Draco", "Scion")
BINDING = C("Leyline Binding", "Binding")
KAVU = C("Territorial Kavu", "Kavu")
FLAMES = C("Tribal Flames", "Flames")
SHEOLDRED = C("Sheoldred, the Apocalypse", "Sheoldred")
FABLE = C("Fable of the Mirror-Breaker", "Fable")
BLOODTITHE = C("Bloodtithe Harvester", "Bloodtithe")
VERDICT = C("Supreme Verdict", "Verdict")
EMPEROR = C("The Wandering Emperor", "Wandering Emperor", "Emperor")
NML = C("No More Lies", "NML")
DELUGE = C("Memory Deluge", "Deluge")
LOTUS = C("Lotus Field", "Lotus")
STRINGS = C("Hidden Strings", "Strings")
ORACLE = C("Thassa's Oracle", "Oracle", "Thoracle")
PORE = C("Pore Over the Pages", "Pore Over")
RING = C("The One Ring", "the Ring", "One Ring")
MOON = C("Blood Moon", "Moon", tags=("bigmana",))
CHALICE = C("Chalice of the Void", "Chalice")

# -- sideboard cards, tagged by what they hate on ------------------------------------------
HATE: tuple[tuple[Entity, str], ...] = (
    (C("Rest in Peace", "RIP", tags=("graveyard",)), "W"),
    (C("Leyline of the Void", "Leyline", tags=("graveyard",)), "B"),
    (C("Relic of Progenitus", "Relic", tags=("graveyard",)), ""),
    (C("Nihil Spellbomb", "Spellbomb", tags=("graveyard",)), ""),
    (C("Endurance", tags=("graveyard",)), "G"),
    (C("Stony Silence", "Stony", tags=("artifacts",)), "W"),
    (C("Force of Vigor", "Vigor", tags=("artifacts",)), "G"),
    (C("Wear // Tear", "Wear/Tear", tags=("artifacts",)), "R"),
    (C("Haywire Mite", "Mite", tags=("artifacts",)), "G"),
    (C("Kor Firewalker", "Firewalker", tags=("burn",)), "W"),
    (C("Timely Reinforcements", "Timely", tags=("burn",)), "W"),
    (C("Kitchen Finks", "Finks", tags=("burn",)), "G"),
    (C("Mystical Dispute", "Dispute", tags=("spells", "combo")), "U"),
    (C("Flusterstorm", "Fluster", tags=("spells", "combo")), "U"),
    (C("Damping Sphere", "Sphere", tags=("bigmana", "combo")), ""),
    (MOON, "R"),
    (C("Alpine Moon", tags=("bigmana",)), "R"),
    (C("Pithing Needle", "Needle", tags=("bigmana",)), ""),
    (C("Engineered Explosives", "EE", "Explosives", tags=("creatures",)), ""),
    (C("Anger of the Gods", "Anger", tags=("creatures",)), "R"),
    (C("Brotherhood's End", tags=("creatures",)), "R"),
    (C("Pick Your Poison", "Poison", tags=("creatures", "artifacts")), "G"),
    (C("Dismember", tags=("creatures",)), ""),
)

WEAKNESS = {
    "graveyard": ("they lean on the graveyard", "their whole plan runs through the graveyard",
                  "they need cards in the yard"),
    "artifacts": ("their threats are artifacts", "they are full of artifacts",
                  "every key piece is an artifact"),
    "burn": ("they just point burn at your face", "they win by burning you out",
             "their damage comes from burn spells"),
    "spells": ("they win with cheap instants", "their plan is a pile of cheap spells",
               "they rely on instant-speed interaction"),
    "combo": ("they are a combo deck", "they win with a combo", "they assemble a combo"),
    "bigmana": ("they cheat on mana with special lands", "their mana is greedy",
                "they depend on nonbasic lands for mana"),
    "creatures": ("they go wide with small creatures", "they swarm the board",
                  "their threats are cheap creatures"),
}


def _arch(name: str, aliases: tuple[str, ...], fmt: str, colors: str, cards: tuple[Entity, ...],
          plan: tuple[str, ...], turn: int, lands: int, fetch: int, key_land: Entity,
          mull: tuple[str, ...], weak: tuple[str, ...]) -> Archetype:
    return Archetype(Entity(name, aliases), fmt, colors, cards, plan, turn, lands, fetch,
                     key_land, mull, weak)


ARCHETYPES: tuple[Archetype, ...] = (
    _arch("Izzet Murktide", ("UR Murktide", "Murktide", "Izzet tempo"), "Modern", "UR",
          (MURKTIDE, DRC, RAGAVAN, BOLT, EI, COUNTER, HEAT, PIERCE, CONSIDER),
          ("trade early and close with a cheap delve dragon",
           "stay cheap, interact, and win with one big flyer"), 5, 19, 8,
          C("Steam Vents", "Vents"), ("a cantrip and a one-drop", "two lands and a cantrip"),
          ("creatures", "spells")),
    _arch("Rakdos Scam", ("Rakdos Evoke", "Scam", "BR Scam"), "Modern", "BR",
          (GRIEF, FURY, MALICE, NDAA, RAGAVAN, SEIZE, BOLT, HEAT),
          ("strip their hand on turn one and snowball a free threat",
           "use evoke tricks to get a big threat and a discard spell on turn one"), 4, 19, 8,
          C("Blood Crypt", "Crypt"), ("Grief plus a reanimation spell", "a scam piece and a land"),
          ("graveyard", "creatures")),
    _arch("Hammer Time", ("Hammer", "the Hammer deck", "Colossus Hammer deck"), "Modern", "W",
          (HAMMER, AID, PALADIN, SAGA, SFM, C("Ornithopter"), C("Springleaf Drum", "Drum")),
          ("equip Colossus Hammer for free and attack for ten on turn two or three",
           "cheat on equip costs and hit with a huge creature early"), 3, 17, 0,
          SAGA, ("the Hammer or a way to find it", "a free equip enabler"), ("artifacts",)),
    _arch("Amulet Titan", ("Amulet", "Titan", "Amulet combo"), "Modern", "G",
          (AMULET, TITAN, DRYAD, PACT, C("Arboreal Grazer", "Grazer"), C("Explore")),
          ("double up land drops and put Primeval Titan down on turn two or three",
           "ramp with bounce lands into an early Titan"), 3, 30, 0,
          C("Simic Growth Chamber", "Growth Chamber", "the bounce land"),
          ("Amulet or a way to make extra land drops", "a bounce land and a ramp piece"),
          ("bigmana",)),
    _arch("Living End", ("cascade", "Living End combo"), "Modern", "BRG",
          (LIVING_END, OUTBURST, SHARDLESS, ARCHITECTS, FON, C("Street Wraith", "Wraith")),
          ("cycle creatures into the yard, then cascade into a one-sided mass reanimation",
           "fill the graveyard and cascade into Living End on turn three"), 3, 17, 6,
          C("Blooming Marsh", "Marsh"), ("a cascade spell and a cycler", "two cyclers"),
          ("graveyard", "combo")),
    _arch("Boros Burn", ("Burn", "RW Burn", "Boros burn"), "Modern", "RW",
          (BOLT, GUIDE, SWIFTSPEAR, EIDOLON, SKEWER, BCHARM, C("Lava Spike", "Spike")),
          ("point every spell at the opponent's face and race",
           "deal twenty as fast as possible with hasty creatures and burn"), 4, 18, 6,
          C("Inspiring Vantage", "Vantage"), ("a one-drop creature", "two burn spells and a land"),
          ("burn", "creatures")),
    _arch("Yawgmoth", ("Yawg", "BG Yawgmoth", "Golgari Yawgmoth"), "Modern", "BG",
          (YAWG, WOLF, CHORD, ARTIST, GRIST, C("Strangleroot Geist", "Geist")),
          ("build a board of undying creatures and grind with Yawgmoth",
           "loop undying creatures through Yawgmoth until the opponent is dead"), 5, 23, 4,
          C("Overgrown Tomb", "Tomb"), ("a mana creature", "Chord or Yawgmoth and two lands"),
          ("creatures", "graveyard")),
    _arch("Four-Color Omnath", ("4c Omnath", "Omnath", "four-colour Omnath"), "Modern", "WURG",
          (OMNATH, W6, SOLITUDE, ENDING, TEFERI, RING),
          ("grind with value creatures and land drops until Omnath takes over",
           "play a long game fuelled by landfall and planeswalkers"), 7, 22, 10,
          C("Scalding Tarn", "Tarn"), ("three lands including a fetch", "a fetch and W6"),
          ("bigmana", "spells")),
    _arch("Boros Energy", ("Energy", "RW Energy", "Boros aggro"), "Modern", "RW",
          (OCELOT, GUIDE_SOULS, PHLAGE, AJANI, DISCHARGE, RAGAVAN, BOLT),
          ("flood the board with cheap creatures and bank energy",
           "curve out with one- and two-drops backed by removal"), 5, 20, 8,
          C("Arid Mesa", "Mesa"), ("a one-drop and a two-drop", "two creatures and removal"),
          ("creatures", "burn")),
    _arch("Goryo's Vengeance", ("Goryo's", "Goryo's combo", "Goryo's reanimator"), "Modern",
          "WBR", (GORYO, ATRAXA, GRIEF, EPHEMERATE, MENDING, SOLITUDE),
          ("discard a big creature and reanimate it at instant speed on turn two",
           "dump Atraxa in the yard and bring it back with Goryo's"), 3, 18, 6,
          C("Marsh Flats", "Flats"), ("a discard outlet and a reanimation spell",
                                      "Goryo's plus a way to bin a fatty"),
          ("graveyard", "combo")),
    _arch("Mono-Green Tron", ("Tron", "G Tron", "green Tron"), "Modern", "G",
          (KARN, WURM, UGIN, MAP, SCRYING, C("Chromatic Star", "Star")),
          ("assemble the three Urza lands and slam seven-drops on turn three",
           "dig for Tron lands and win with colorless bombs"), 6, 18, 0,
          C("Urza's Tower", "Tower"), ("two Tron lands or Map", "a Tron piece and a dig spell"),
          ("bigmana", "artifacts")),
    _arch("Dimir Frog", ("UB Frog", "Dimir midrange", "Dimir tempo"), "Modern", "UB",
          (FROG, BOWMASTERS, PUSH, SEIZE, COUNTER, CONSIDER),
          ("trade one for one and win with a hard-to-kill Psychic Frog",
           "disrupt early and ride a single resilient threat"), 6, 19, 8,
          C("Watery Grave", "Grave"), ("interaction and a threat", "a cantrip and removal"),
          ("creatures",)),
    _arch("Domain Zoo", ("Zoo", "domain aggro"), "Modern", "WURG",
          (SCION, BINDING, KAVU, FLAMES, RAGAVAN, C("Nishoba Brawler", "Brawler")),
          ("get five basic land types out and cast oversized cheap threats",
           "use domain to make cheap creatures huge and cheap removal cheaper"), 5, 19, 11,
          C("Raugrin Triome", "Triome"), ("a fetch and a triome", "two lands and a two-drop"),
          ("creatures", "burn")),
    _arch("Rakdos Midrange", ("Pioneer Rakdos", "BR midrange"), "Pioneer", "BR",
          (SHEOLDRED, FABLE, BLOODTITHE, SEIZE, PUSH),
          ("strip key cards with discard and win with sticky value threats",
           "grind with card advantage and Sheoldred"), 6, 24, 0,
          C("Blightstep Pathway", "Pathway"), ("discard and a two-drop", "three lands and Fable"),
          ("creatures",)),
    _arch("Azorius Control", ("UW Control", "Azorius"), "Pioneer", "WU",
          (VERDICT, EMPEROR, NML, DELUGE, C("Portable Hole", "Hole")),
          ("answer everything and win late with planeswalkers",
           "counter the key spells and wrath the rest"), 9, 27, 0,
          C("Hallowed Fountain", "Fountain"), ("three lands and interaction",
                                             "two answers and land drops"),
          ("spells",)),
    _arch("Lotus Field Combo", ("Lotus Combo", "Lotus Field"), "Pioneer", "UG",
          (LOTUS, STRINGS, ORACLE, PORE, C("Emergent Ultimatum", "Ultimatum")),
          ("untap Lotus Field repeatedly and draw into Thassa's Oracle",
           "generate huge mana with untap effects and win with Oracle"), 6, 27, 0,
          LOTUS, ("Lotus Field or a way to find it", "a land and an untap spell"),
          ("combo", "bigmana")),
)

_BY = {a.card.name: a for a in ARCHETYPES}

# -- curated facts -------------------------------------------------------------------------
SYNERGIES: tuple[tuple[str, Entity, Entity, tuple[str, ...]], ...] = (
    ("Izzet Murktide", DRC, EI, (
        "Iteration puts instants and sorceries in the graveyard so Channeler reaches delirium",
        "Iteration fills the yard with two card types and turns on delirium for DRC")),
    ("Izzet Murktide", MURKTIDE, CONSIDER, (
        "every cheap instant in the yard shrinks the delve cost and grows the dragon",
        "Consider bins cards for delve and adds a counter to the Regent")),
    ("Izzet Murktide", RAGAVAN, BOLT, (
        "Bolt clears the blocker so the monkey connects and dashes again",
        "removing the first blocker lets Ragavan snowball treasures")),
    ("Rakdos Scam", GRIEF, MALICE, (
        "Malice brings the evoked Grief back so its discard trigger happens twice",
        "the reanimation spell returns Grief after the evoke sacrifice")),
    ("Rakdos Scam", FURY, NDAA, (
        "NDAA rebuys the evoked Fury as a permanent 3/3 double striker",
        "Fury deals four damage for free and then comes back")),
    ("Hammer Time", HAMMER, AID, (
        "Sigarda's Aid attaches the Hammer for free when it enters",
        "Aid skips the equip cost of eight entirely")),
    ("Hammer Time", PALADIN, HAMMER, (
        "metalcraft turns every equip cost into zero",
        "with three artifacts Paladin makes equipping the Hammer free")),
    ("Hammer Time", SAGA, SFM, (
        "both tutor for the cheap artifact package and the Hammer",
        "Saga and Stoneforge together give two ways to find the equipment")),
    ("Amulet Titan", AMULET, C("Simic Growth Chamber", "Growth Chamber", "bounce lands"), (
        "bounce lands enter untapped and tap for two on the turn they come down",
        "Amulet untaps each bounce land so it makes mana right away")),
    ("Amulet Titan", TITAN, AMULET, (
        "the two lands Titan fetches enter untapped and can be used immediately",
        "Titan's extra lands come in untapped and keep the combo going")),
    ("Amulet Titan", DRYAD, AMULET, (
        "Dryad gives extra land drops and Amulet makes each of them untapped",
        "more land drops plus untapping bounce lands means Titan on turn two")),
    ("Living End", OUTBURST, LIVING_END, (
        "Outburst cascades into Living End at instant speed",
        "with no cheaper spells in the deck, Outburst always hits Living End")),
    ("Living End", ARCHITECTS, LIVING_END, (
        "cycling creatures stocks the graveyard for the mass return",
        "every cycled creature comes back when Living End resolves")),
    ("Boros Burn", SWIFTSPEAR, BOLT, (
        "each burn spell triggers prowess and adds extra damage",
        "cheap burn turns Swiftspear into a real clock")),
    ("Yawgmoth", YAWG, WOLF, (
        "undying brings the Wolf back so it can be sacrificed to Yawgmoth again",
        "each Wolf is two sacrifices and two -1/-1 counters")),
    ("Yawgmoth", CHORD, ARTIST, (
        "Chord finds Artist at instant speed to turn sacrifices into drain",
        "Chording up Blood Artist converts the Yawgmoth loop into lethal")),
    ("Four-Color Omnath", OMNATH, C("fetch lands", "fetches", "fetchlands"), (
        "every fetch land is two landfall triggers for Omnath",
        "fetches double the landfall value Omnath gets")),
    ("Four-Color Omnath", W6, C("fetch lands", "fetches", "fetchlands"), (
        "Wrenn returns a used fetch every turn to keep the land drops coming",
        "W6 rebuys fetches for endless landfall")),
    ("Goryo's Vengeance", GORYO, ATRAXA, (
        "Goryo's returns Atraxa at instant speed and her trigger draws a pile of cards",
        "an end-of-turn Goryo's on Atraxa is the main kill")),
    ("Goryo's Vengeance", EPHEMERATE, SOLITUDE, (
        "flickering an evoked Solitude keeps it and exiles a second creature",
        "Ephemerate saves Solitude from its evoke sacrifice")),
    ("Mono-Green Tron", MAP, C("Urza's Tower", "Tower", "the missing Tron land"), (
        "Map fetches whichever Urza land is missing",
        "Map on turn one finds the third Tron piece")),
    ("Domain Zoo", SCION, BINDING, (
        "both get cheaper with each basic land type you control",
        "with full domain Scion is free and Binding costs one")),
    ("Boros Energy", OCELOT, GUIDE_SOULS, (
        "Ocelot's tokens trigger Guide of Souls for energy and life",
        "each cat token entering gives an energy from Guide")),
    ("Azorius Control", EMPEROR, NML, (
        "both are played at instant speed, so you pass with mana open every turn",
        "flash in the Emperor at end of turn when they play around No More Lies")),
    ("Lotus Field Combo", LOTUS, STRINGS, (
        "Hidden Strings untaps Lotus Field twice for six mana",
        "each untap on Lotus Field nets three mana")),
    ("Lotus Field Combo", ORACLE, PORE, (
        "Pore Over draws deep and untaps lands so Oracle wins on an empty library",
        "the draw spells empty the library before casting Oracle")),
)

CARD_EVALS: tuple[tuple[Entity, str, tuple[str, ...], tuple[str, ...]], ...] = (
    (RING, "Modern", ("a must-play in slower decks", "a four-of in any deck that can cast it"),
     ("it buys a turn of protection and then draws a pile of cards",
      "protection plus card draw stalls aggro and buries control")),
    (BOWMASTERS, "Modern", ("one of the best cards in the format", "a must-answer threat"),
     ("it punishes every extra card the opponent draws and kills X/1 creatures",
      "it shoots down small creatures and grows an army off the opponent's draws")),
    (FURY, "Modern", ("premium free removal", "the best red creature in the format"),
     ("it can kill two or three small creatures without spending mana",
      "splitting four damage for free wrecks aggro starts")),
    (SOLITUDE, "Modern", ("the best white removal spell", "premium removal"),
     ("it exiles any creature at instant speed for zero mana",
      "free instant-speed exile answers every early threat")),
    (RAGAVAN, "Modern", ("the strongest one-drop", "a game-winning turn-one play"),
     ("it snowballs treasure and card advantage if it connects on the play",
      "unanswered on the play it wins almost every game")),
    (FROG, "Modern", ("a hard-to-answer threat", "better than it looks"),
     ("it grows and flies on demand, so damage-based removal misses it",
      "discarding extra lands turns it into a huge flyer")),
    (BOLT, "Modern", ("still the best burn spell", "an automatic four-of in red decks"),
     ("it kills most early threats and can finish the game",
      "one mana for three damage is flexible removal and reach")),
    (SEIZE, "Modern", ("good on the play but weaker on the draw", "a situational discard spell"),
     ("the two life hurts against aggro and it is poor as a topdeck",
      "taking their best card matters early, not on turn six")),
    (W6, "Modern", ("a format-warping planeswalker", "very strong in fetch-heavy decks"),
     ("it pings X/1 creatures and rebuys fetch lands every turn",
      "killing one-toughness creatures while ramping lands is brutal")),
    (TEFERI, "Modern", ("a great sideboard card against instants", "strong against control"),
     ("it shuts off all instant-speed interaction and bounces a threat",
      "sorcery-speed opponents cannot counter or flash anything")),
    (SAGA, "Modern", ("a top-tier artifact engine", "a free-rolling value land"),
     ("it fetches a cheap artifact and makes ever-bigger constructs",
      "it is a land that tutors and builds an army")),
    (MOON, "Modern", ("a strong sideboard card", "a game-winner against greedy mana"),
     ("it punishes three- and four-colour mana bases",
      "nonbasics become Mountains, which locks out greedy decks")),
    (CHALICE, "Modern", ("a strong sideboard card against cheap spells", "a niche lock piece"),
     ("set on one it blanks Bolt, Push and every one-drop",
      "at one counter it shuts off the cheap interaction of most decks")),
    (HEAT, "Modern", ("scalable removal that is great with delirium", "solid cheap removal"),
     ("with delirium it deals six for one mana",
      "it kills almost anything once the graveyard has four card types")),
    (EI, "Modern", ("one of the best card-advantage spells in tempo", "a strong value spell"),
     ("two mana for two cards plus selection fuels delve and delirium",
      "it finds lands and spells while filling the yard")),
    (MURKTIDE, "Modern", ("the best threat in Izzet", "a cheap finisher"),
     ("it often costs two mana and arrives as a 5/5 flyer",
      "delve makes it cheap and the instants make it huge")),
    (SHEOLDRED, "Pioneer", ("the best four-drop in the format", "a must-kill threat"),
     ("it drains two per turn and punishes every draw",
      "the life swing ends races and grinds out control")),
    (FABLE, "Pioneer", ("a premium three-drop", "card advantage in one card"),
     ("it makes a treasure, loots twice and flips into a copy engine",
      "three value modes in one card make it a staple")),
    (BINDING, "Modern", ("the best removal in domain decks", "very efficient removal"),
     ("with full domain it exiles any permanent at instant speed for one mana",
      "flash exile for one mana answers anything")),
    (TITAN, "Modern", ("the game-winning threat of ramp decks", "a huge payoff"),
     ("it fetches two utility lands every time it enters or attacks",
      "each attack searches two lands that end the game")),
    (PHLAGE, "Modern", ("an efficient removal spell that later wins games", "a top threat"),
     ("it deals three when cast and escapes into a recurring threat",
      "Bolt-plus-lifegain now and a 6/6 later")),
    (COUNTER, "Pioneer", ("fine but not essential", "a playable but narrow counter"),
     ("double blue is hard to cast on turn two in three-colour decks",
      "the mana cost is restrictive outside mono-blue decks")),
)

SEQUENCING: tuple[tuple[str, Entity, Entity, tuple[str, ...]], ...] = (
    ("Izzet Murktide", EI, MURKTIDE, (
        "the graveyard needs to be full enough to delve Murktide cheaply",
        "Iteration first leaves enough cards in the yard for a cheap Regent")),
    ("Rakdos Scam", GRIEF, NDAA, (
        "evoke Grief first to see their hand, then return it with the reanimation spell",
        "look at their hand with Grief before committing the reanimation spell")),
    ("Amulet Titan", AMULET, C("the bounce land", "Simic Growth Chamber", "a bounce land"), (
        "the bounce land untaps only if Amulet is already in play",
        "Amulet has to be down first or the bounce land enters tapped")),
    ("Hammer Time", C("Springleaf Drum", "Drum"), HAMMER, (
        "you need the artifact count for metalcraft before equipping",
        "the cheap artifacts enable Paladin's free equip")),
    ("Living End", C("cyclers", "cycling creatures", "Street Wraith"), OUTBURST, (
        "cascading with an empty graveyard returns nothing",
        "you need creatures in the yard before the mass return")),
    ("Four-Color Omnath", OMNATH, C("a fetch land", "the fetch", "fetches"), (
        "Omnath must be on the battlefield for the landfall triggers",
        "landfall only counts while Omnath is in play")),
    ("Goryo's Vengeance", MENDING, GORYO, (
        "Atraxa has to be in the graveyard before Goryo's can target it",
        "discard the fatty first, then reanimate at end of turn")),
    ("Mono-Green Tron", MAP, SCRYING, (
        "find the land you are missing first and keep Scrying for the next turn",
        "Map searches the missing piece and Scrying digs for the payoff")),
    ("Boros Energy", GUIDE_SOULS, OCELOT, (
        "Guide on the battlefield first means every token generates energy",
        "energy comes from creatures entering after Guide is down")),
    ("Dimir Frog", COUNTER, FROG, (
        "tapping out for Frog into open removal loses tempo",
        "hold up the counter first and land Frog when they tap out")),
    ("Yawgmoth", WOLF, YAWG, (
        "Yawgmoth needs fodder on the board to be protected",
        "undying creatures first so Yawgmoth can activate right away")),
    ("Lotus Field Combo", LOTUS, STRINGS, (
        "Strings needs Lotus Field on the battlefield to untap for value",
        "untap effects are wasted without Lotus Field out")),
)

STANCE = {
    "favored": (("favored", "a good matchup", "ahead", "the favourite"), 60),
    "unfavored": (("unfavored", "a rough matchup", "behind", "the underdog"), 40),
    "even": (("roughly even", "a coin flip", "close to fifty-fifty"), 50),
}


def _crc(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


def _hate_for(arch: Archetype, opp: Archetype) -> Entity | None:
    """A sideboard card the archetype can cast that hits one of the opponent's weaknesses."""
    fits = [card for card, color in HATE
            if card.tags and card.tags[0] in opp.weak
            and (not color or set(color) <= set(arch.colors))]
    return fits[_crc("hate", arch.card.name, opp.card.name) % len(fits)] if fits else None


# -- subject spaces -----------------------------------------------------------------------
def _synergy_subjects() -> list[dict[str, Any]]:
    return [{"arch": _BY[a].card, "a": x, "b": y, "why": why} for a, x, y, why in SYNERGIES]


def _eval_subjects() -> list[dict[str, Any]]:
    return [{"card": c, "fmt": f, "verdict": v, "reason": r} for c, f, v, r in CARD_EVALS]


def _arch_subjects() -> list[dict[str, Any]]:
    return [{"arch": a.card, "plan": a.plan, "key": a.cards[0], "turn": a.turn}
            for a in ARCHETYPES]


def _mana_subjects() -> list[dict[str, Any]]:
    return [{"arch": a.card, "lands": a.lands, "fetch": a.fetch, "key_land": a.key_land,
             "min": a.lands - 1} for a in ARCHETYPES]


def _sideboard_subjects() -> list[dict[str, Any]]:
    out = []
    for arch in ARCHETYPES:
        for opp in ARCHETYPES:
            if opp is arch or opp.fmt != arch.fmt:
                continue
            hate = _hate_for(arch, opp)
            if hate is None:
                continue
            h = _crc(arch.card.name, opp.card.name)
            flex = arch.cards[len(arch.cards) // 2:]
            out.append({"arch": arch.card, "opp": opp.card, "hate": hate,
                        "k": ("two", "three", "four")[h % 3], "out": flex[h % len(flex)],
                        "weak": WEAKNESS[hate.tags[0]]})
    return out


# Interaction a deck can hold back for the opponent's key threat.
ANSWERS = frozenset(c.name for c in (BOLT, HEAT, COUNTER, PIERCE, FURY, GRIEF, SEIZE, SOLITUDE,
                                     ENDING, DISCHARGE, PUSH, BINDING, FLAMES, VERDICT, NML, FON,
                                     BOWMASTERS))


def _answer(arch: Archetype, opp: Archetype, h: int) -> Entity:
    answers = [c for c in arch.cards if c.name in ANSWERS]
    if answers:
        return answers[h % len(answers)]
    return _hate_for(arch, opp) or Entity("a removal spell", ("removal", "your removal"))


def _matchup_subjects() -> list[dict[str, Any]]:
    out = []
    for arch in ARCHETYPES:
        for opp in ARCHETYPES:
            if opp is arch or opp.fmt != arch.fmt:
                continue
            h = _crc("matchup", arch.card.name, opp.card.name)
            words, pct = STANCE[("favored", "unfavored", "even")[h % 3]]
            out.append({"arch": arch.card, "opp": opp.card, "stance": words,
                        "pct": pct + (h >> 4) % 6 - (0 if pct == 50 else 2),
                        "threat": opp.cards[0], "answer": _answer(arch, opp, h >> 8)})
    return out


def _meta_subjects() -> list[dict[str, Any]]:
    out = []
    for opp in ARCHETYPES:
        h = _crc("meta", opp.card.name)
        hate = next((c for c, _ in HATE if c.tags and c.tags[0] in opp.weak), HATE[0][0])
        out.append({"opp": opp.card, "fmt": opp.fmt, "share": 6 + h % 12, "hate": hate,
                    "threat": opp.cards[0]})
    return out


def _mulligan_subjects() -> list[dict[str, Any]]:
    return [{"arch": a.card, "req": a.mull, "key": a.cards[0]} for a in ARCHETYPES]


def _sequencing_subjects() -> list[dict[str, Any]]:
    return [{"arch": _BY[a].card, "first": x, "second": y, "why": why}
            for a, x, y, why in SEQUENCING]


# -- families -----------------------------------------------------------------------------
FAMILIES: tuple[Family, ...] = (
    Family(
        "synergy", "default", "In {arch}, pair {a} with {b}: {why}.",
        (
            ("{a} and {b} are [great|excellent|absurd|very strong] together in {arch}",
             "[always ]pair {a} with {b} [in|when building] {arch}",
             "{a} plus {b} is the [core|key|best] interaction of {arch}",
             "the {arch} list wants {a} next to {b}",
             "{b} makes {a} [much better|a real threat|way stronger]",
             "in {arch}, {a} [gets better|shines] when you also have {b}",
             "{a} + {b} [is a real combo|go together]"),
            ("{why}", "the reason is that {why}", "it works because {why}",
             "{why}, which is the whole point", "key detail: {why}"),
            ("keep both in the main deck", "don't cut either half when trimming the list",
             "never board out {a} while {b} is still in",
             "count them as a package, not as two separate cards",
             "if you play one, play the other too"),
        ),
        _synergy_subjects, ("arch", "a", "b"),
        ("we ran four {a} and [three|four] {b}", "the interaction won us game three of the final",
         "{b} alone is much weaker"),
    ),
    Family(
        "card_eval", "default", "{card} is {verdict} in {fmt}: {reason}.",
        (
            ("{card} is {verdict} in {fmt}", "rate {card} as {verdict}",
             "in {fmt}, {card} is {verdict}", "my take on {card}: {verdict}",
             "{card} [really ]is {verdict}", "[don't|do not] underestimate {card}, it's {verdict}"),
            ("{reason}", "because {reason}", "the argument: {reason}",
             "what matters is that {reason}"),
            ("evaluate {card} with that in mind when building {fmt} lists",
             "keep this in mind before [buying|adding] {card}",
             "this should guide whether {card} makes the 75"),
        ),
        _eval_subjects, ("card",),
        ("it showed up in [most|half of the] top 8 lists", "[prices|the price] of {card} jumped",),
    ),
    Family(
        "archetype", "default",
        "{arch} wants to {plan}; it is built around {key} and usually wins by turn {turn}.",
        (
            ("{arch} [wants to|aims to|tries to] {plan}",
             "the [game ]plan [of|for] {arch} is to {plan}",
             "when piloting {arch}, {plan}", "with {arch} the idea is to {plan}",
             "{arch} is a deck that [wants to|tries to] {plan}"),
            ("{key} is the card the [whole ]deck is built around",
             "everything in {arch} revolves around {key}",
             "the engine [of the deck ]is {key}", "{arch} lives and dies by {key}"),
            ("it [usually|typically] [wins|kills] [on|by] turn {turn}",
             "expect to close [the game ]around turn {turn}",
             "the clock is roughly turn {turn}", "games end by turn {turn} if it goes well"),
        ),
        _arch_subjects, ("arch",),
        ("[our|my] league record with it is [4-1|3-2|5-0]",),
    ),
    Family(
        "mana", "default",
        "Run {lands} lands in {arch}, including {fetch} fetch lands and {key_land}; "
        "never go below {min}.",
        (
            ("{arch} [plays|runs|wants] {lands} lands", "{lands} lands is right for {arch}",
             "the land count for {arch} is {lands}", "{arch}: {lands} lands, no fewer",
             "build {arch} on {lands} lands"),
            ("[include|play] {key_land} in the mana base", "{key_land} is a must in {arch}",
             "{fetch} fetches [plus|and] {key_land}",
             "the mana wants {key_land} [and|plus] {fetch} fetch lands"),
            ("never [go|cut] below {min} lands", "cutting to {min} lands [loses|costs] games",
             "don't shave lands below {min}, even on the play",
             "{min} lands is the floor"),
        ),
        _mana_subjects, ("arch",),
        ("flooded twice with {lands} but screwed more often with fewer",
         "checked with a hypergeometric calculator"),
    ),
    Family(
        "sideboard", "default",
        "Against {opp}, {arch} brings in {k} {hate} and cuts {out}, because {weak}.",
        (
            ("bring in {k} {hate} against {opp}", "{hate} comes in [vs|versus|against] {opp}",
             "side in [the ]{hate} when facing {opp}",
             "{opp} is the matchup where {hate} earns its sideboard slot",
             "versus {opp}, board in {hate}", "post-board against {opp}: +{k} {hate}"),
            ("{out} is the card to take out", "board out {out}",
             "{out} is bad in that matchup, so trim it", "make room by cutting {out}",
             "-{k} {out}"),
            ("{weak}", "the reason: {weak}", "{hate} is strong there because {weak}",
             "remember {weak}"),
        ),
        _sideboard_subjects, ("arch", "opp"),
        ("this plan took the match in [two|three] games",
         "[some|a few] people bring in {hate} on the play only"),
    ),
    Family(
        "matchup", "default",
        "{arch} is {stance} against {opp} (about {pct}% in game one); the game hinges on "
        "answering {threat}, so save {answer} for it.",
        (
            ("{arch} is {stance} against {opp}", "{arch} vs {opp} is {stance}",
             "against {opp} we are {stance}", "the {opp} matchup is {stance} for {arch}"),
            ("about {pct}% in game one", "roughly {pct}% pre-board",
             "[our|my] numbers say {pct}% game one", "win rate near {pct}%"),
            ("the game hinges on answering {threat}", "{threat} is the card to respect",
             "save {answer} for {threat}", "everything depends on whether {threat} sticks",
             "don't waste {answer} before {threat} shows up"),
        ),
        _matchup_subjects, ("arch", "opp"),
        ("[tested|played] [twenty|thirty|forty] games of it on MTGO",
         "[data|numbers] from the last [two|three] challenges"),
    ),
    Family(
        "meta", "schedule",
        "{opp} is about {share}% of the {fmt} meta right now; pack {hate} against {threat}.",
        (
            ("{opp} is [about|around|roughly] {share}% of the {fmt} meta",
             "{opp} [makes up|is] {share}% of the field",
             "{opp} is [everywhere|the deck to beat] in {fmt} right now",
             "{fmt} is [full of|seeing a lot of] {opp}"),
            ("[pack|bring|play] {hate} [for it|against it]",
             "{hate} in the sideboard is [mandatory|a must] for that",
             "prepare answers to {threat}", "have a plan for {threat}"),
            ("expect [to face|to play against] it [two|three] rounds out of [eight|nine]",
             "it's [rising|up] since the last [Pro Tour|banned-list update]",
             "the share keeps [growing|climbing]"),
        ),
        _meta_subjects, ("opp",),
        ("[MTGGoldfish|the challenge results] [shows|show] the same trend",),
    ),
    Family(
        "mulligan", "default",
        "With {arch}, keep only hands with {req}; mulligan the rest.",
        (
            ("[with|in] {arch}, [keep only|only keep] hands with {req}",
             "mulligan any {arch} seven without {req}", "{arch} keeps need {req}",
             "a keepable {arch} hand has {req}"),
            ("ship the rest, even on the draw", "[a|any] hand without it is a mulligan",
             "don't get greedy with loose keeps", "going to six is better than a blank seven"),
            ("{key} alone does not make a hand", "a hand with only {key} and lands is a trap",
             "don't keep just because you see {key}"),
        ),
        _mulligan_subjects, ("arch",),
        ("lost a whole round to a greedy keep", "the pros mulligan this aggressively too"),
    ),
    Family(
        "sequencing", "default", "In {arch}, play {first} before {second}: {why}.",
        (
            ("in {arch}, play {first} before {second}",
             "{first} [goes|comes] first, [then|and only then] {second}",
             "[always ]sequence {first} ahead of {second}",
             "don't cast {second} before {first}", "{first} → {second}, in that order"),
            ("{why}", "because {why}", "reason: {why}", "the order matters: {why}"),
        ),
        _sequencing_subjects, ("arch", "first", "second"),
        ("misplayed this [twice|once] last [league|weekend]",),
    ),
)

STYLE = Style(
    hedges=("I think", "In my experience,", "Pretty sure", "From testing,", "The team agrees:",
            "Apparently", "Per the user's notes,", "If I remember right,", "Honestly,",
            "For what it's worth,", "I'm fairly confident", "As far as I can tell,",
            "The user told me", "Coverage commentary said"),
    contexts=("after {day}'s league", "at last week's FNM", "in the RCQ top 8",
              "while testing on MTGO", "during the Pro Tour coverage",
              "when the user asked about their list", "going into the Regional Championship",
              "after the latest banned-list update", "in a best-of-three with {player}",
              "at {store} on {day}", "from the {event} results", "in a playtest session"),
    framings=("Note: {b}", "Reminder - {b}", "Lesson learned: {b}", "{b} (noted during deck review)",
              "Remember that {b}", "Deck tip: {b}", "{b}. Worth remembering",
              "Key takeaway: {b}", "User wants this kept: {b}"),
    specifics=("went {wl} with this at {event}", "confirmed over {games} games on MTGO",
               "{player} said the same on stream", "it came up again in round {round}",
               "saw this at {store} on {day}"),
    anecdotes=("Game {round} against {player} at {store}", "Round {round} of the {event}",
               "Watching {player} on stream", "After losing to {player} on {day}",
               "In testing with {player}"),
    fillers={
        "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
        "player": ("Sam", "Priya", "Marco", "Jun", "Alex", "Kenji", "Lena", "Omar", "Ruth"),
        "store": ("Dragon's Lair", "the Mana Vault", "Card Kingdom", "the local store",
                  "Top Deck Games", "Game Haven"),
        "event": ("RCQ", "FNM", "Modern Challenge", "Pioneer league", "Regional Championship",
                  "store championship", "Showcase Challenge"),
        "wl": ("5-0", "4-1", "3-2", "6-2", "7-1", "2-1"),
        "games": ("twenty", "thirty", "forty", "fifty", "a dozen"),
        "round": ("1", "2", "3", "4", "5", "6", "7"),
    },
)

# One-off notes that belong to no latent instruction.
NOISE = (
    "Buy {n} packs of {sleeves} sleeves before the {event}",
    "{player} still owes me ${price} for the draft on {day}",
    "The parking lot at {store} closes at {time}",
    "Lost a {item} at {store} last {day}",
    "Watch the {event} VOD this weekend",
    "{player} wants my foil {card} for their binder",
    "Order a new playmat with {art} art",
    "Cube night at {player}'s place on {day} at {time}",
    "{store} changed its opening hours to {time} on weekdays",
    "Bring {n} extra dice and a pen to the {event}",
    "Ask {player} whether the {event} is still on {day}",
    "The Wi-Fi at {store} is terrible, download the decklist beforehand",
    "Remember to sell the spare {card} before rotation",
    "{player}'s birthday draft is on {day}",
    "My {item} is falling apart, get a new one",
    "The {event} had {n} players this time",
    "Pizza place next to {store} does a discount for players",
    "Renew the {store} loyalty card before {day}",
    "Take photos of the {art} alter for {player}",
    "The judge at the {event} was really helpful with a layers question",
)
NOISE_FILLERS = {
    **STYLE.fillers,
    "n": ("2", "3", "4", "5", "6", "10", "12", "24"),
    "sleeves": ("Dragon Shield", "KMC", "Ultimate Guard", "Ultra Pro", "matte black"),
    "price": ("15", "20", "25", "30", "40", "12"),
    "time": ("6pm", "7pm", "8pm", "9pm", "10pm", "noon"),
    "item": ("deck box", "dice bag", "binder", "playmat", "token box", "pen"),
    "card": tuple(c.name for c in (BOLT, RAGAVAN, RING, FURY, SOLITUDE, W6, SAGA, SHEOLDRED,
                                   FABLE, TEFERI, MURKTIDE, BOWMASTERS)),
    "art": ("Island", "dragon", "Phyrexian", "Kamigawa", "Zendikar", "full-art forest"),
}

VOCABULARY = Vocabulary("mtg", FAMILIES, STYLE, NOISE, NOISE_FILLERS)
