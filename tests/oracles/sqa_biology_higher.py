"""Oracles for the SQA Higher Biology skills (SQA.BIOL.H.*).

Calculated answers are worked from the biology in plain Python (complementary
base pairing, the triplet code, mark-recapture, rates and efficiencies) and
rounded as the question asks, half up, as a mark scheme rounds. Recall
answers come from this module's own tables of the course's facts. Nothing
here reads the blueprints or calls the project's helpers.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def _half_up(x: float, places: int):
    """Round as a mark scheme does (2.25 -> 2.3), from the number's shortest decimal form."""
    value = float(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    return int(value) if places == 0 else value


# --------------------------------------------------------------------------
# DNA and the genome

BASE_PARTNER = {"adenine": "thymine", "thymine": "adenine", "guanine": "cytosine", "cytosine": "guanine"}


def _base_pairing(p: dict) -> int:
    share = {p["given"]: p["p"], BASE_PARTNER[p["given"]]: p["p"]}
    for base in BASE_PARTNER:                       # the other pair shares what is left equally
        share.setdefault(base, (100 - 2 * p["p"]) / 2)
    if p["mode"] == "pct":
        return round(share[p["asked"]])
    bases = p["total"] if p["mode"] == "count" else 2 * p["total"]
    return round(bases * share[p["asked"]] / 100)


BASES_PER_CODON = 3


def _codons_amino_acids(p: dict) -> int:
    amino_acids = p["n"]
    mode = p["mode"]
    if mode == "aa_plain":
        return (amino_acids * BASES_PER_CODON) // BASES_PER_CODON
    if mode == "bases_plain":
        return amino_acids * BASES_PER_CODON
    if mode == "bases_stop":
        return (amino_acids + 1) * BASES_PER_CODON          # the stop codon is in the mRNA
    if mode == "aa_stop":
        mrna = (amino_acids + 1) * BASES_PER_CODON
        return mrna // BASES_PER_CODON - 1                  # the stop codon codes for nothing
    primary = (amino_acids + 1) * BASES_PER_CODON + p["intr"]
    mature = primary - p["intr"]                            # introns spliced out
    return mature // BASES_PER_CODON - 1


# What each described change does to the polypeptide.
MUTATION_EFFECTS = ["missense", "nonsense", "nonsense", "frameshift", "frameshift", "splice-site", "splice-site",
                    "missense", "missense", "nonsense", "frameshift", "splice-site"]


def _mutations(p: dict) -> str:
    if p["mode"] == "effect":
        effect = MUTATION_EFFECTS[p["sc"]]
        return "Splice-site" if effect == "splice-site" else effect.capitalize()
    return p["kind"].capitalize()


GENE_EXPRESSION_ROLES = {
    "DNA polymerase": "Adds complementary DNA nucleotides to the 3' end of a growing DNA strand",
    "primer": "A short complementary strand that lets DNA polymerase start adding nucleotides",
    "ligase": "Joins the fragments of the lagging strand together",
    "leading strand": "The new DNA strand that is replicated continuously",
    "lagging strand": "The new DNA strand that is replicated in fragments",
    "hydrogen bonds": "Hold complementary base pairs together and are broken when DNA unwinds",
    "RNA polymerase": "Unwinds DNA and makes a primary transcript of RNA from a gene",
    "primary transcript": "The first RNA copy of a gene, containing introns and exons",
    "intron": "A non-coding region of the primary transcript, removed by RNA splicing",
    "exon": "A coding region of the primary transcript, kept in the mature transcript",
    "mature transcript": "mRNA whose introns have been removed and whose exons have been joined",
    "alternative RNA splicing": "Produces different mature transcripts from the same primary transcript",
    "mRNA": "Carries a copy of the genetic code from the nucleus to a ribosome",
    "tRNA": "Carries a specific amino acid to the ribosome",
    "anticodon": "The three bases on tRNA that pair with a codon on mRNA",
    "codon": "A triplet of bases on mRNA that codes for one amino acid",
    "ribosome": "The site of translation, where amino acids are joined into a polypeptide",
    "peptide bond": "The bond that joins neighbouring amino acids in a polypeptide",
}


def _name_as_option(name: str) -> str:
    """An option starts with a capital letter; names such as mRNA and DNA polymerase are written as they are."""
    return name if name[0].isupper() or name[1:2].isupper() else name[0].upper() + name[1:]


def _gene_expression(p: dict) -> str:
    return _name_as_option(p["part"]) if p["ask"] == "name" else GENE_EXPRESSION_ROLES[p["part"]]


GENOME_TERMS = {
    "genome": "genome", "proteome": "proteome", "differentiation": "differentiation", "stem_cells": "stem cells",
    "meristems": "meristems", "phylogenetics": "phylogenetics", "sequencing": "genomic sequencing",
    "pharmacogenetics": "pharmacogenetics", "evolution": "evolution", "expression": "gene expression",
    "gt_plasmid": "horizontal gene transfer", "gt_virus": "horizontal gene transfer", "gt_parent": "vertical gene transfer",
    "sel_plumage": "sexual selection", "embryonic": "embryonic stem cells", "tissue": "tissue stem cells",
    "allopatric": "allopatric speciation", "sympatric_time": "sympatric speciation",
    "sympatric_hosts": "sympatric speciation", "eukaryotes": "eukaryotes", "archaea": "archaea",
    "molecular_clock": "molecular clock", "bioinformatics": "bioinformatics", "non_coding": "non-coding sequences",
}
# Which individuals each example favours: the average, one extreme, or both extremes.
SELECTION_FAVOURS = {"sel_birth_mass": "average", "sel_clutch": "average", "sel_climate": "one extreme",
                     "sel_moths": "one extreme", "sel_beaks": "both extremes", "sel_snails": "both extremes"}
SELECTION_TYPE = {"average": "stabilising selection", "one extreme": "directional selection",
                  "both extremes": "disruptive selection"}


def _genome_terms(p: dict) -> str:
    if p["q"] in SELECTION_FAVOURS:
        return SELECTION_TYPE[SELECTION_FAVOURS[p["q"]]]
    return GENOME_TERMS[p["q"]]


# --------------------------------------------------------------------------
# Metabolism and survival

RESPIRATION_ROLES = {
    "glycolysis": "Splits glucose into two pyruvate in the cytoplasm, with a net gain of two ATP",
    "citric acid cycle": "Breaks down the acetyl group in the mitochondrial matrix, releasing carbon dioxide",
    "electron transport chain": "Passes high-energy electrons along proteins in the inner mitochondrial membrane, pumping hydrogen ions",
    "fermentation": "Breaks down pyruvate in the cytoplasm when oxygen is not available",
    "ATP synthase": "Makes ATP from ADP and Pi as hydrogen ions flow back through it",
    "NAD": "Carries hydrogen ions and high-energy electrons to the electron transport chain",
    "dehydrogenase": "Removes hydrogen ions and electrons from a respiratory substrate",
    "oxygen": "Final acceptor of electrons and hydrogen ions, forming water",
    "acetyl coenzyme A": "Carries the acetyl group made from pyruvate into the citric acid cycle",
    "oxaloacetate": "Combines with the acetyl group to form citrate, and is regenerated by the cycle",
    "citrate": "Formed when the acetyl group combines with oxaloacetate",
    "pyruvate": "The three-carbon product of glycolysis",
    "lactate": "Formed from pyruvate in animal cells without oxygen, in a reversible reaction",
    "ethanol": "Formed from pyruvate in plant and yeast cells without oxygen, in a reaction that cannot be reversed",
    "hydrogen ions": "Pumped across the inner mitochondrial membrane, then flow back through ATP synthase",
    "amino acids": "Can be used as respiratory substrates after their amino groups are removed",
    "glycogen": "Stored carbohydrate in animal cells, broken down to glucose for respiration",
}


def _respiration_stages(p: dict) -> str:
    return _name_as_option(p["part"]) if p["ask"] == "name" else RESPIRATION_ROLES[p["part"]]


ENZYME_TERMS = {
    "anabolic": "anabolic", "catabolic": "catabolic", "activation_energy": "activation energy",
    "induced_fit": "induced fit", "active_site": "active site", "affinity": "affinity",
    "feedback_term": "feedback inhibition", "pathway": "metabolic pathway", "complex": "multi-enzyme complex",
    "products": "products", "r_enzyme_limit": "enzyme", "r_respiration": "catabolic", "r_protein": "anabolic",
    "r_lower_barrier": "activation energy", "r_products": "it decreases",
}
# How each inhibitor acts: is it the pathway's own end product, and does more substrate overcome it?
INHIBITORS = {
    "i_shape": (False, True), "i_more_substrate": (False, True), "i_malonate": (False, True),
    "i_competes": (False, True), "r_same_max": (False, True), "r_onpg": (False, True),
    "i_away": (False, False), "i_no_reversal": (False, False), "i_mercury": (False, False),
    "r_lower_max": (False, False), "r_cyanide": (False, False),
    "i_end_product": (True, False), "i_used_up": (True, False), "i_isoleucine": (True, False),
    "r_negative_feedback": (True, False),
}


def _enzyme_control(p: dict) -> str:
    if p["q"] in ENZYME_TERMS:
        return ENZYME_TERMS[p["q"]]
    end_product, overcome_by_substrate = INHIBITORS[p["q"]]
    if end_product:
        return "feedback inhibition"
    return "competitive inhibition" if overcome_by_substrate else "non-competitive inhibition"


SURVIVAL_TERMS = {
    "conformer": "conformer", "regulator": "regulator", "negative_feedback": "negative feedback",
    "hypothalamus": "hypothalamus", "dormancy": "dormancy", "hibernation": "hibernation", "aestivation": "aestivation",
    "torpor": "daily torpor", "migration": "migration", "extremophiles": "extremophiles",
    "vasodilation": "vasodilation", "vasoconstriction": "vasoconstriction", "shivering": "shivering",
    "sweating": "sweating", "detector": "hypothalamus", "regulator_cost": "regulator", "conformer_cost": "conformer",
    "hummingbird": "daily torpor", "lungfish": "aestivation", "hot_springs": "extremophiles",
    "bear_winter": "hibernation", "arctic_tern": "migration",
}
# Does the animal's internal environment follow its surroundings?
FOLLOWS_SURROUNDINGS = {"lizard": True, "starfish": True, "seal": False}
# Does the dormancy start before the adverse conditions arrive?
STARTS_BEFORE = {"dormouse": True, "trees": True, "tortoise": False}
# Could the behaviour have been learned from experience or from other birds?
CHANCE_TO_LEARN = {"cuckoo": False, "cranes": True}


def _survival_terms(p: dict) -> str:
    q = p["q"]
    if q in FOLLOWS_SURROUNDINGS:
        return "conformer" if FOLLOWS_SURROUNDINGS[q] else "regulator"
    if q in STARTS_BEFORE:
        return "predictive dormancy" if STARTS_BEFORE[q] else "consequential dormancy"
    if q in CHANCE_TO_LEARN:
        return "learned" if CHANCE_TO_LEARN[q] else "innate"
    return SURVIVAL_TERMS[q]


# Typical resting oxygen use, cm3 per gram per hour, and the second animal's mass and rate when comparing.
TYPICAL_RATES = {"mouse": [2.4, 2.7, 3.0, 3.6], "hamster": [1.5, 1.8, 2.0, 2.4], "rat": [0.8, 0.9, 1.0, 1.2],
                 "frog": [0.15, 0.2, 0.25, 0.3], "locust": [0.6, 0.8, 1.0, 1.2]}
COMPARED_ANIMAL = {"mouse": (25, 3.0), "hamster": (100, 2.0), "rat": (250, 1.0), "frog": (30, 0.2), "locust": (2, 0.8)}


def _metabolic_rate(p: dict) -> float:
    hours = p["t"] if p["mode"] == "hours" else p["t"] / 60
    oxygen = round(TYPICAL_RATES[p["animal"]][p["ri"]] * p["m"] * hours, 3)   # the respirometer reading shown
    per_gram_per_hour = oxygen / p["m"] / hours
    if p["mode"] != "compare":
        return per_gram_per_hour
    other_mass, other_rate = COMPARED_ANIMAL[p["other"]]
    other_oxygen = other_rate * other_mass                                    # used in 60 minutes
    return _half_up(per_gram_per_hour / (other_oxygen / other_mass / 1), 1)


def _microbial_growth(p: dict) -> int:
    # The question's clock: lag phase (no growth) followed by n generations of the log phase.
    elapsed = p["lag"] + p["n"] * p["g"]
    growing = elapsed - p["lag"]
    generations = growing // p["g"]
    if p["mode"] == "generation_time":
        fold = (p["n0"] * 2 ** p["n"]) // p["n0"]
        doublings = fold.bit_length() - 1
        return elapsed // doublings
    return p["n0"] * 2 ** generations


# --------------------------------------------------------------------------
# Sustainability and interdependence

def _mark_recapture(p: dict) -> int:
    marked_first, second_sample, recaptured = p["m"], p["c"], p["r"]
    if p["mode"] == "percent":
        percent_marked = recaptured * 100 // second_sample          # the percentage the question states
        return round(marked_first * 100 / percent_marked)
    return round(marked_first * second_sample / recaptured)


def _productivity(p: dict) -> float:
    if p["mode"] == "efficiency":
        stored = p["feed"] * p["eff"] // 100                    # kJ kept as new tissue, as stated
        return stored / p["feed"] * 100
    if p["mode"] == "harvest":
        economic = round(p["bio"] * p["hi"], 3)                   # dry mass of grain or seed, as stated
        return _half_up(economic / p["bio"], 2)
    biomass = round(p["prod"] * p["area"] * p["months"] / 12, 3)  # harvested in the stated months
    return biomass / p["area"] / p["months"] * 12


def _yield_change(p: dict) -> float:
    tonnes = [p["y0"] / 10, p["y1"] / 10, p["y2"] / 10]
    if p["mode"] == "increase":
        treated = (p["y0"] * (100 + p["pct"]) // 100) / 10
        return (treated - tonnes[0]) / tonnes[0] * 100
    if p["mode"] == "decrease":
        protected, unprotected = tonnes[1], tonnes[0]
        return _half_up((protected - unprotected) / protected * 100, 1)
    rows = {"first_third": (0, 2), "second_third": (1, 2), "first_second": (0, 1)}[p["pair"]]
    start, end = tonnes[rows[0]], tonnes[rows[1]]
    return _half_up((end - start) / start * 100, 1)


PHOTOSYNTHESIS_NAMES = {"RuBP": "Ribulose bisphosphate (RuBP)", "3PG": "3-phosphoglycerate (3PG)",
                        "G3P": "Glyceraldehyde-3-phosphate (G3P)"}
PHOTOSYNTHESIS_ROLES = {
    "chlorophyll a": "The main pigment, absorbing mainly blue and red light",
    "chlorophyll b": "An accessory pigment absorbing wavelengths slightly different from those of the main pigment",
    "carotenoids": "Accessory pigments that extend the range of wavelengths absorbed and protect chlorophyll from intense light",
    "absorption spectrum": "A graph of how much light of each wavelength a pigment absorbs",
    "action spectrum": "A graph of the rate of photosynthesis at each wavelength of light",
    "photolysis": "The splitting of water using energy from light",
    "NADP": "Accepts hydrogen from water and carries it to the Calvin cycle",
    "ATP synthase": "Makes ATP as hydrogen ions flow back through it",
    "oxygen": "The by-product released when water is split",
    "water": "The source of the hydrogen that reduces NADP",
    "electron transport chain": "Passes on high-energy electrons from chlorophyll, pumping hydrogen ions",
    "RuBisCO": "The enzyme that attaches carbon dioxide to RuBP",
    "RuBP": "The acceptor that carbon dioxide is attached to, regenerated by the cycle",
    "3PG": "Formed when carbon dioxide is attached to RuBP, then turned into G3P",
    "G3P": "Made from 3PG using ATP and NADPH; used to make glucose and to regenerate RuBP",
    "glucose": "Made from G3P; used in respiration or to make starch and cellulose",
    "carbon dioxide": "The gas fixed in the Calvin cycle",
}


def _photosynthesis(p: dict) -> str:
    if p["ask"] == "job":
        return PHOTOSYNTHESIS_ROLES[p["part"]]
    return PHOTOSYNTHESIS_NAMES.get(p["part"]) or _name_as_option(p["part"])


# Who gains in each example of symbiosis: True if both partners benefit.
BOTH_BENEFIT = {"tapeworm": False, "head_lice": False, "coral": True, "cattle": True}
INTERDEPENDENCE_TERMS = {
    "parasitism": "parasitism", "mutualism": "mutualism", "host": "host", "vector": "vector", "mosquito": "vector",
    "symbiosis": "symbiosis", "hierarchy": "social hierarchy", "cooperative": "cooperative hunting",
    "lions": "cooperative hunting", "altruism": "altruism", "reciprocal": "reciprocal altruism", "kin": "kin selection",
    "workers_kin": "kin selection", "appeasement": "appeasement behaviour", "ritual": "ritualistic display",
    "workers": "workers", "genetic_diversity": "genetic diversity", "species_diversity": "species diversity",
    "richness": "species richness", "abundance": "relative abundance", "ecosystem_diversity": "ecosystem diversity",
    "bottleneck": "bottleneck effect", "overexploitation": "overexploitation", "fragmentation": "habitat fragmentation",
    "corridors": "habitat corridors", "invasive": "invasive species",
}


def _interdependence_terms(p: dict) -> str:
    if p["q"] in BOTH_BENEFIT:
        return "mutualism" if BOTH_BENEFIT[p["q"]] else "parasitism"
    return INTERDEPENDENCE_TERMS[p["q"]]


ORACLES = {
    "SQA.BIOL.H.BASE_PAIRING": _base_pairing,
    "SQA.BIOL.H.CODONS_AMINO_ACIDS": _codons_amino_acids,
    "SQA.BIOL.H.MUTATIONS": _mutations,
    "SQA.BIOL.H.GENE_EXPRESSION": _gene_expression,
    "SQA.BIOL.H.GENOME_TERMS": _genome_terms,
    "SQA.BIOL.H.RESPIRATION_STAGES": _respiration_stages,
    "SQA.BIOL.H.ENZYME_CONTROL": _enzyme_control,
    "SQA.BIOL.H.SURVIVAL_TERMS": _survival_terms,
    "SQA.BIOL.H.METABOLIC_RATE": _metabolic_rate,
    "SQA.BIOL.H.MICROBIAL_GROWTH": _microbial_growth,
    "SQA.BIOL.H.MARK_RECAPTURE": _mark_recapture,
    "SQA.BIOL.H.PRODUCTIVITY": _productivity,
    "SQA.BIOL.H.YIELD_CHANGE": _yield_change,
    "SQA.BIOL.H.PHOTOSYNTHESIS": _photosynthesis,
    "SQA.BIOL.H.INTERDEPENDENCE_TERMS": _interdependence_terms,
}
