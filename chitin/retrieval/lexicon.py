"""The words the stance rules know by hand: opposite poles, the irregular forms a
suffix rule cannot reach, and numbers written as words (chitin.retrieval.stance)."""

from __future__ import annotations

# Opposite poles: "a/b" is one pair, any number to a line, "#" starts a comment.
# A word is written as a root ("complicat", "supervis": see ``stance.root``) or as a
# plain word, whose inflections ("stricter", "strictly", "tightening", "closed") are
# found by ``stance``: ``stance.build_lexicon`` makes every form, and
# ``python scripts/lexicon_forms.py`` writes them to chitin/assets/lexicon-forms.txt, the
# table a process reads (run it after editing this list; a test fails until then).
# A pair here turns two claims that otherwise say the same thing into a conflict, so a
# pair that is not a real opposition costs precision on every claim that uses it;
# where a word's common sense is not the opposition ("fix", "new", "good", "left",
# "up", "keep"/"remove"), it is left out. The first block is the rounds before the
# seventh (docs/design.md §9e); then the seventh round's general English; the last,
# the ninth round's, is from WordNet (credited there). Opposites with a phrase on a
# side ("by hand" / "automatically") are in chitin/assets/opposite-phrases.txt (the
# tenth round), made into the same table.
OPPOSITES = """
# the rounds before (first to fifth)
brief/thorough brief/detail brief/long brief/verbose concise/detail concise/verbose
concise/thorough concise/long concise/elaborate terse/verbose terse/wordy short/long
short/detail short/verbose small/large small/big few/many more/less more/fewer
increase/decrease raise/lower before/after first/last early/late morning/afternoon
morning/evening fast/slow quick/slow fast/silent loud/quiet loud/silent formal/casual
formal/informal polite/blunt cautious/bold cautious/reckless careful/reckless safe/risky
simple/complex simple/complicat minimal/comprehensive strict/lenient strict/loose
strict/flexible rigid/flexible proactive/passive proactive/reactive active/passive
accept/reject allow/forbid allow/block enable/disable include/omit include/exclude
add/remove optimistic/pessimistic tab/space dark/light public/private sync/async
synchronous/asynchronous manual/automat independent/supervis autonomous/supervis
like/dislike love/hate like/hate enjoy/dislike enjoy/hate love/dislike prefer/dislike
prefer/hate want/dislike always/rarely often/rarely often/seldom hot/cold hot/cool
warm/cool bright/dark right/wrong correct/wrong patient/impatient warm/cold warm/chill
hot/chill wet/dry random/deterministic quiet/chatty quiet/outgoing reserved/outgoing
introvert/extrovert keep/delete keep/discard open/close start/end begin/end first/end
early/last together/separate online/offline inside/outside indoor/outdoor cheap/expensive
high/low easy/hard soft/hard heavy/light wide/narrow thick/thin deep/shallow
maximum/minimum most/least best/worst explicit/implicit mandatory/optional
required/optional permanent/temporary direct/indirect immediately/later immediate/delay
now/later surprise/advance whole/part all/none everyone/nobody full/partial full/minimum
full/empty tight/loose strong/weak clean/dirty raw/cooked start/finish begin/finish
remember/forget save/spend buy/sell borrow/lend hide/show hide/reveal praise/criticis
praise/criticiz reward/punish encourage/discourage agree/disagree approve/reject
accept/decline above/below top/bottom front/behind maximi/minimi grow/shrink
expand/shrink lengthen/shorten polite/rude calm/angry relaxed/tense generous/stingy
local/remote upper/lower ascend/descend honest/dishonest familiar/unfamiliar
comfortable/uncomfortable conscious/unconscious available/unavailable certain/uncertain
necessary/unnecessary important/unimportant tidy/untidy predictable/unpredictable
responsive/unresponsive polite/impolite mature/immature visible/invisible valid/invalid
correct/incorrect complete/incomplete approve/disapprove trust/distrust healthy/unhealthy
secure/insecure happy/unhappy reliable/unreliable stable/unstable consistent/inconsistent
legal/illegal regular/irregular relevant/irrelevant responsible/irresponsible

# time and order (seventh round, from here on)
soon/later early/overdue punctual/late past/future
beginning/end dawn/dusk sunrise/sunset morning/night summer/winter
weekday/weekend gradual/sudden gradual/immediate gradual/abrupt incremental/wholesale
upfront/afterwards beforehand/afterwards ahead/behind rapid/slow hurried/leisurely
serial/parallel sequential/parallel sequential/concurrent frequent/infrequent
frequent/rare frequently/rarely frequently/seldom usually/rarely regularly/rarely
routinely/rarely everywhere/nowhere daily/rarely
# amount and size
maximal/minimal increase/reduce boost/reduce add/subtract
add/delete expand/collapse broad/narrow widen/narrow huge/tiny
tall/short long/short plenty/little abundant/scarce excess/shortage
sufficient/insufficient adequate/inadequate extensive/limited limited/unlimited
restricted/unrestricted bounded/unbounded finite/infinite sparing/liberal
sparingly/liberally sparingly/generously frugal/lavish frugal/extravagant cheap/costly
inexpensive/expensive single/multiple alone/together solo/together
individually/together separately/together split/combine
join/separate combine/separate attach/detach connect/disconnect unite/divide
centralise/decentralise centralize/decentralize centralise/distribute
centralize/distribute centralised/distributed centralized/distributed
consolidate/split fully/partially completely/partially
entirely/partly totally/partially thorough/superficial thorough/cursory
deep/superficial thorough/sloppy careful/sloppy rigorous/sloppy rigorous/lax
# manner and temper
strict/relaxed strict/permissive strict/lax tighten/loosen tighten/relax firm/lenient
firm/soft firm/loose harsh/gentle harsh/lenient rough/gentle rough/smooth
gentle/forceful gentle/aggressive gentle/hard aggressive/conservative
aggressive/cautious aggressive/passive aggressive/defensive conservative/liberal
bold/timid brave/timid brave/cowardly careful/careless careful/hasty hasty/deliberate
deliberate/accidental intentional/accidental intentionally/accidentally
planned/spontaneous planned/improvised impulsive/deliberate
impulsively/carefully calm/anxious calm/nervous calm/agitated calm/frantic
relaxed/stressed relaxed/anxious patient/hasty tolerant/intolerant
friendly/hostile friendly/unfriendly friendly/cold warm/distant warm/aloof
serious/playful serious/lighthearted humble/arrogant modest/boastful
truthful/deceptive honest/deceptive transparent/opaque transparent/secretive
open/secretive shared/private visible/hidden reveal/conceal disclose/withhold
disclose/conceal expose/conceal blunt/tactful blunt/diplomatic
direct/subtle direct/evasive plain/fancy plain/ornate simple/elaborate
simple/sophisticated simple/complicated easy/difficult clear/vague clear/ambiguous
clear/unclear precise/vague precise/approximate exact/approximate exact/rough
accurate/inaccurate true/false succinct/verbose succinct/wordy brief/extended
brief/lengthy quiet/noisy silent/vocal talkative/quiet talkative/reserved outgoing/shy
shy/confident confident/hesitant confident/insecure confident/unsure decisive/indecisive
decisive/hesitant sure/unsure confident/doubtful polished/rough perfect/imperfect
finished/unfinished positive/negative cheerful/gloomy optimist/pessimist
hopeful/hopeless eager/reluctant willing/unwilling willing/reluctant keen/reluctant
lazy/diligent lazy/hardworking busy/idle active/idle active/inactive energetic/lethargic
tired/rested asleep/awake cautious/adventurous adventurous/timid
organised/disorganised organized/disorganized organised/chaotic organized/chaotic
orderly/chaotic tidy/messy neat/messy structured/unstructured structured/freeform
methodical/haphazard systematic/haphazard systematic/random ordered/random
sorted/unsorted static/dynamic
stable/volatile steady/erratic steady/unsteady uniform/varied equal/unequal fair/unfair
neutral/biased factual/speculative literal/figurative
abstract/concrete theoretical/practical formally/informally politely/rudely
# verbs of stance and action
accept/refuse allow/prohibit allow/deny allow/disallow permit/forbid permit/prohibit
permit/deny grant/deny grant/revoke embrace/reject welcome/reject
include/skip obey/disobey obey/ignore heed/ignore follow/ignore respect/disrespect
admit/deny confirm/deny praise/blame praise/scold reward/penalise
reward/penalize encourage/forbid encourage/deter motivate/discourage
benefit/harm protect/harm protect/expose safe/dangerous safe/unsafe
secure/vulnerable create/delete create/destroy install/uninstall
install/remove mount/unmount lock/unlock freeze/thaw freeze/unfreeze pin/unpin
activate/deactivate subscribe/unsubscribe save/discard save/delete save/waste
retain/discard preserve/destroy preserve/discard archive/delete undo/redo
inhale/exhale fold/unfold
pack/unpack wrap/unwrap plug/unplug tie/untie
fasten/unfasten lift/lower strengthen/weaken harden/soften heat/cool
accelerate/decelerate simplify/complicate encrypt/decrypt encrypted/unencrypted
compress/decompress normalise/denormalise normalize/denormalize
win/lose gain/lose attack/defend rent/buy lease/buy arrive/depart
arrival/departure enter/exit join/quit continue/stop
continue/quit continue/pause pause/resume start/stop begin/stop proceed/stop
proceed/wait mute/unmute sit/stand
# place and direction
internal/external interior/exterior indoors/outdoors local/global near/far
nearby/distant close/far north/south east/west upstairs/downstairs uphill/downhill
upstream/downstream forwards/backwards horizontal/vertical
ascending/descending inbound/outbound incoming/outgoing inward/outward
wired/wireless absolute/relative leading/trailing prefix/suffix uppercase/lowercase
# state, matter and temperature
boiling/cold boiling/cool frozen/thawed fresh/stale fresh/frozen ripe/unripe
damp/dry moist/dry humid/dry bright/dim dark/pale sunny/shady sun/shade sharp/dull
sharp/blunt smooth/rough soft/firm tender/tough strong/mild mild/spicy mild/severe
sweet/sour sweet/bitter fat/lean fat/thin loose/firm dense/sparse
awake/unconscious alive/dead
# technical stances
mutable/immutable stateful/stateless eager/lazy manual/automatic manually/automatically
inclusive/exclusive whitelist/blacklist
allowlist/denylist signed/unsigned verified/unverified tested/untested
documented/undocumented typed/untyped pinned/unpinned tracked/untracked
handled/unhandled trusted/untrusted known/unknown
expected/unexpected aware/unaware useful/useless helpful/unhelpful
important/trivial essential/optional essential/unnecessary mandatory/voluntary
compulsory/optional major/minor primary/secondary significant/insignificant
appropriate/inappropriate acceptable/unacceptable suitable/unsuitable
possible/impossible likely/unlikely probable/improbable normal/abnormal usual/unusual
common/rare typical/atypical generic/specific
broad/specific
# negative prefixes: over-, under-, un-, in-, dis-
overestimate/underestimate overcook/undercook overpay/underpay overstate/understate
overfeed/underfeed overexpose/underexpose peeled/unpeeled salted/unsalted
sweetened/unsweetened filtered/unfiltered washed/unwashed cooked/uncooked
covered/uncovered sealed/unsealed heated/unheated insured/uninsured
vaccinated/unvaccinated supervised/unsupervised paid/unpaid planned/unplanned
scheduled/unscheduled announced/unannounced invited/uninvited edited/unedited
formatted/unformatted compressed/uncompressed cached/uncached wanted/unwanted
accessible/inaccessible capable/incapable compatible/incompatible
competent/incompetent convenient/inconvenient dependent/independent
effective/ineffective efficient/inefficient experienced/inexperienced
flexible/inflexible practical/impractical precise/imprecise
proper/improper rational/irrational reversible/irreversible sensitive/insensitive
sincere/insincere continue/discontinue qualify/disqualify
believable/unbelievable common/uncommon conventional/unconventional
lucky/unlucky official/unofficial pleasant/unpleasant popular/unpopular
reasonable/unreasonable successful/unsuccessful true/untrue wise/unwise
block/unblock zip/unzip follow/unfollow publish/unpublish hide/unhide
# more of everyday life
crisp/soggy crunchy/soggy compact/loose acidic/alkaline natural/artificial
natural/synthetic sweet/dry junior/senior beginner/expert novice/expert
amateur/professional digital/analog digital/printed
handwritten/typed advance/last
apart/together soft/loud softly/loudly whisper/shout smile/frown
bend/straighten clockwise/anticlockwise
clockwise/counterclockwise daytime/nighttime iced/hot salty/bland spicy/bland
caffeinated/decaffeinated fatty/lean singular/plural
cooperate/compete collaborate/compete cooperative/competitive trusting/suspicious
generous/selfish selfless/selfish proud/ashamed clean/messy sedentary/active
intense/gentle intense/light intense/moderate vigorous/gentle hydrated/dehydrated
profit/loss gain/loss verbose/quiet compiled/interpreted
blocking/nonblocking hardcoded/configurable readonly/writable
favour/oppose favor/oppose recommend/discourage endorse/oppose
welcome/discourage add/omit mention/omit
big/little modern/traditional front/rear constantly/rarely thrifty/extravagant
thrifty/wasteful economical/wasteful runny/thick finely/coarsely diluted/concentrated
sheltered/exposed sober/drunk sick/healthy upright/slouched earn/spend splurge/save
onsite/remote onsite/offsite upfront/later confirm/cancel attend/skip reply/ignore
respond/ignore acknowledge/ignore allow/ban permit/ban required/forbidden encourage/ban
openly/secretly immediately/eventually
attended/unattended labelled/unlabelled labeled/unlabeled reviewed/unreviewed
saved/unsaved committed/uncommitted versioned/unversioned
authenticated/unauthenticated authorized/unauthorized authorised/unauthorised
protected/unprotected answered/unanswered resolved/unresolved bold/understated
flashy/understated flashy/plain
# liking and wanting
love/loathe adore/hate adore/loathe like/loathe enjoy/dread enjoy/loathe
appreciate/resent welcome/resent happy/sad pleased/annoyed pleased/displeased
satisfied/dissatisfied interested/uninterested interested/bored excited/bored
fond/dislike

# from WordNet, ninth round: WordNet 3.0's direct antonyms (its "!" pointers) between
# two everyday words whose sense in the pair is their common one, as
# scripts/antonyms_from_wordnet.py prints them (its rules: docs/design.md §9e, ninth
# round). WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# Used under its licence (permission to use, copy, modify and distribute for any
# purpose, without fee, this notice kept; provided "as is", without warranty).
# adjectives
able/unable actual/potential acute/chronic preceding/succeeding audible/inaudible
beautiful/ugly better/worse adjusted/unadjusted changed/unchanged charged/uncharged
stained/unstained smart/stupid common/individual concerned/unconcerned
constructive/destructive continual/sporadic convincing/unconvincing definite/indefinite
delicate/rugged desirable/undesirable developed/undeveloped dominant/subordinate
empirical/theoretical favorable/unfavorable opening/closing former/latter
fortunate/unfortunate frozen/unfrozen general/specific specific/nonspecific
raised/lowered innocent/guilty glad/sad greater/lesser married/unmarried
meaningful/meaningless mild/intense mortal/immortal natural/unnatural nice/nasty
occupied/unoccupied ordinary/extraordinary past/present personal/impersonal
prepared/unprepared profound/superficial emotional/cerebral realistic/unrealistic
related/unrelated sane/insane satisfactory/unsatisfactory separate/joint
sophisticated/naive united/divided wise/foolish
# verbs
sleep/wake dress/undress disintegrate/integrate minimize/maximize hitch/unhitch
honor/dishonor equal/differ
# adverbs
partly/wholly fortunately/unfortunately backward/forward quickly/slowly
permanently/temporarily downward/upward publicly/privately impatiently/patiently
consciously/unconsciously necessarily/unnecessarily
# nouns of quality, state and feeling
obedience/disobedience willingness/unwillingness simplicity/complexity
loyalty/disloyalty mortality/immortality advantage/disadvantage intelligence/stupidity
experience/inexperience victory/defeat joy/sorrow satisfaction/dissatisfaction
presence/absence employment/unemployment discontinuity/continuity comfort/discomfort
wealth/poverty safety/danger
"""
ANTONYMS: tuple[tuple[str, str], ...] = tuple(
    (first, second)
    for line in OPPOSITES.splitlines()
    for pair in line.partition("#")[0].split()
    for first, _, second in [pair.partition("/")]
)

# Forms a suffix rule makes of a pole's word that mean something else: not poles
# ("hardly" is not "hard", "customer" not "custom", "simply" is "just"), unless a pair
# names them ("likely/unlikely").
_DRIFTED_WORDS = """hardly lately shortly closely fairly barely nearly highly largely mostly
    likely lovely shower starter tier pasted pasting lasting lasted lasts easter customer
    essentially significantly possibly probably typically simply perfectly multiply
    roughly deadly strongly absolutely relatively naturally normally certainly surely
    freezer heater locker"""
DRIFTED = frozenset(_DRIFTED_WORDS.split())

# The irregular forms a suffix rule cannot reach, by the root they belong to.
IRREGULAR = {
    "brevity": "brief",
    "briefly": "brief",
    "detailed": "detail",
    "details": "detail",
    "verbosity": "verbose",
    "lengthy": "long",
    "longer": "long",
    "shorter": "short",
    "larger": "large",
    "bigger": "big",
    "smaller": "small",
    "afterwards": "after",
    "widen": "wide",
    "narrowed": "narrow",
    "afterward": "after",
    "later": "late",
    "earlier": "early",
    "faster": "fast",
    "quickly": "quick",
    "slowly": "slow",
    "loudly": "loud",
    "quietly": "quiet",
    "silently": "silent",
    "dislikes": "dislike",
    "disliked": "dislike",
    "likes": "like",
    "liked": "like",
    "loves": "love",
    "hates": "hate",
    "enjoys": "enjoy",
    "prefers": "prefer",
    "preferred": "prefer",
    "wants": "want",
    "wanted": "want",
    "spaces": "space",
    "tabs": "tab",
    "avoiding": "avoid",
    "avoids": "avoid",
    "stopping": "stop",
    "never": "never",
    "gently": "gentle",
    "always": "always",
}

# The past forms no suffix rule makes of the verbs in opposite-phrases.txt ("take* on":
# "took on", "taken on"), read as the phrase.
PHRASE_VERBS = {
    "take": ("took", "taken"),
    "give": ("gave", "given"),
    "get": ("got", "gotten"),
    "go": ("went", "gone"),
    "keep": ("kept",),
    "hold": ("held",),
    "stand": ("stood",),
    "stick": ("stuck",),
    "fall": ("fell", "fallen"),
    "lose": ("lost",),
    "leave": ("left",),
    "speak": ("spoke", "spoken"),
    "sleep": ("slept",),
    "eat": ("ate", "eaten"),
    "shut": ("shut",),
    "put": ("put",),
    "cut": ("cut",),
    "wind": ("wound",),
    "catch": ("caught",),
    "say": ("said",),
}

# Numbers written as words, as digits: "five kilometres" and "5 km" give one value.
NUMBER_WORDS = {
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
}

# The verbs of a wish, in their common forms (general English, not the labelled sets'
# words): a claim about a person that says one is about a preference of theirs
# (judgement._other_slot).
_WISH_WORDS = """want wants wanted wanting prefer prefers preferred preferring like likes liked
    love loves loved enjoy enjoys enjoyed hate hates hated dislike dislikes disliked
    loathe loathes adore adores insist insists insisted wish wishes wished rather
    favour favours favoured favor favors favored"""
WISHES = frozenset(_WISH_WORDS.split())
