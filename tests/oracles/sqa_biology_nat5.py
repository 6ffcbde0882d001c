"""Oracles for the SQA National 5 Biology skills (SQA.BIOL.N5.*).

Recall answers come from this module's own tables of the course's facts
(written out here, not read from the blueprints); calculated answers are
worked from the biology in plain Python and rounded as the question asks,
half up, as a mark scheme rounds. Nothing here reads the blueprints or calls
the project's helpers.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal


def _half_up(x: float, places: int):
    """Round as a mark scheme does (2.25 -> 2.3), from the number's shortest decimal form."""
    value = float(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    return int(value) if places == 0 else value


# --------------------------------------------------------------------------
# Cell biology

CELL_STRUCTURE_JOBS = {
    "nucleus": "Controls the cell's activities and holds its genetic information",
    "cell membrane": "Controls which substances enter and leave the cell",
    "cytoplasm": "Site of most of the cell's chemical reactions",
    "mitochondrion": "Site of aerobic respiration",
    "ribosome": "Site of protein synthesis",
    "chloroplast": "Site of photosynthesis",
    "cell wall": "Supports the cell and stops it bursting",
    "vacuole": "Stores cell sap",
    "plasmid": "Small ring of DNA carrying extra genes",
}


def _cell_structures(p: dict) -> str:
    if p["ask"] == "name":
        return p["part"].capitalize()
    return CELL_STRUCTURE_JOBS[p["part"]]


# What each described situation shows: the substance and its gradient, or the need for energy.
TRANSPORT_BY_SITUATION = {
    "e_alveoli": "diffusion", "e_muscle_co2": "diffusion", "e_glucose": "diffusion", "e_leaf_co2": "diffusion",
    "h_dye_poison": "diffusion", "h_capillary": "diffusion", "h_tissue_oxygen": "diffusion",
    "h_leaf_oxygen": "diffusion",
    "e_root_water": "osmosis", "e_blood_salt": "osmosis", "e_sugar_solutions": "osmosis", "e_raisin": "osmosis",
    "h_potato": "osmosis", "h_burst": "osmosis", "h_turgid": "osmosis", "h_plasmolysed": "osmosis",
    "e_nitrate": "active transport", "e_iodide": "active transport", "e_sodium_pump": "active transport",
    "h_no_oxygen": "active transport", "h_cyanide": "active transport", "h_temperature": "active transport",
    "h_gut_glucose": "active transport",
}


def _membrane_transport(p: dict) -> str:
    if p["scene"] != "ions":
        return TRANSPORT_BY_SITUATION[p["scene"]]
    source, destination = (p["outside"], p["inside"]) if p["move"] == "in" else (p["inside"], p["outside"])
    return "diffusion" if source > destination else "active transport"


# Respiration: aerobic (glucose + oxygen -> carbon dioxide + water, 38 ATP, mitochondria) and
# fermentation (cytoplasm, 2 ATP; lactate in animals, ethanol and carbon dioxide in plants and yeast).
AEROBIC_ATP, FERMENTATION_ATP = 38, 2
RESPIRATION_FACTS = {
    "fuel": "glucose", "gas_in": "oxygen", "gas_out": "carbon dioxide", "carrier": "ATP",
    "aerobic_atp": str(AEROBIC_ATP), "animal_ferment": "lactate", "waste_water": "water",
    "anaerobic_name": "fermentation", "ferment_site": "cytoplasm", "stage1_site": "cytoplasm",
    "aerobic_site": "mitochondria", "pyruvate": "pyruvate", "ferment_atp": str(FERMENTATION_ATP),
    "stage1_atp": "2", "atp_from": "ADP and Pi", "yeast_ferment": "ethanol and carbon dioxide",
    "plant_ferment": "ethanol and carbon dioxide", "sprinter": "lactate", "bread": "carbon dioxide",
    "wine": "ethanol", "marathon": "mitochondria", "ratio": str(AEROBIC_ATP // FERMENTATION_ATP),
    "waterlogged": "ethanol and carbon dioxide", "germinating": "fermentation",
    "yeast_oxygen": str(AEROBIC_ATP), "yeast_site": "cytoplasm", "aerobic_need": "oxygen",
    "aerobic_name": "aerobic respiration", "yeast_gas": "carbon dioxide", "atp_breakdown": "ADP and Pi",
}


def _respiration(p: dict) -> str:
    return RESPIRATION_FACTS[p["q"]]


def _percentage_change(p: dict) -> float:
    start = p["start"]
    if p["fin"] != 100:
        end = p["fin"]                       # given directly (hard level)
    else:
        gaining = p["ctx"] in ("pulse", "breathing", "seedling") or p["sol"] in (
            "distilled water", "0.1 mol/l sucrose solution")
        end = start * (100 + p["pct"]) / 100 if gaining else start * (100 - p["pct"]) / 100
    return _half_up(abs(end - start) / start * 100, 1)


def _cell_division(p: dict) -> int:
    cells = p["start"]
    for _ in range(p["n"]):          # every division doubles every cell
        cells *= 2
    if p["mode"] == "time":
        return p["n"] * p["gen"]     # minutes for that many doublings
    return cells


MICROMETRES_PER_MM = 1000


def _magnification(p: dict) -> int:
    # The stem shows the image length in mm (the specimen drawn mag times its actual length in um).
    image_mm = p["actual"] * p["mag"] / MICROMETRES_PER_MM
    image_um = image_mm * MICROMETRES_PER_MM
    if p["mode"] == "actual":
        return round(image_um / p["mag"])               # actual size = image size / magnification
    return round(image_um / p["actual"])                # magnification = image size / actual size


# --------------------------------------------------------------------------
# Multicellular organisms

GENETICS_DEFINITIONS = {
    "alleles": "alleles", "genotype": "genotype", "phenotype": "phenotype", "dominant": "dominant",
    "recessive": "recessive", "homozygous": "homozygous", "heterozygous": "heterozygous", "gametes": "gametes",
    "zygote": "zygote", "polygenic": "polygenic",
}
# Distinct groups -> discrete variation (single gene); any value in a range -> continuous (many genes).
DISCRETE = {"v_blood_group", "v_tongue", "v_earlobes", "v_flower_colour"}
CONTINUOUS = {"v_height", "v_hand_span", "v_seed_mass", "v_leaf_length", "v_body_mass"}
INHERITANCE = {"g_height": "polygenic", "g_flower": "single gene", "g_hand_span": "many genes",
               "g_blood_group": "single gene"}
PEA_AND_OTHER_TRAITS = {"T": ("tall", "dwarf"), "R": ("round", "wrinkled"), "P": ("purple", "white"),
                        "B": ("black", "brown"), "N": ("normal", "vestigial")}


def _genetics_terms(p: dict) -> str:
    q = p["q"]
    if q in GENETICS_DEFINITIONS:
        return GENETICS_DEFINITIONS[q]
    if q in DISCRETE:
        return "discrete"
    if q in CONTINUOUS:
        return "continuous"
    if q in INHERITANCE:
        return INHERITANCE[q]
    # q == "cross": "A" stands for the dominant allele, "a" for the recessive one.
    alleles = p["geno"]
    if p["ask"] == "zygosity":
        return "homozygous" if alleles[0] == alleles[1] else "heterozygous"
    dominant, recessive = PEA_AND_OTHER_TRAITS[p["trait"]]
    return dominant if "A" in alleles else recessive


def _monohybrid_cross(p: dict) -> int:
    first, second = p["cross"].split(" x ")          # e.g. "Aa", "aa": A dominant, a recessive
    offspring = [g1 + g2 for g1 in first for g2 in second]   # the Punnett square's four boxes
    dominant = sum(1 for child in offspring if "A" in child)
    wanted = dominant if p["ask"] == "dom" else len(offspring) - dominant
    if p["mode"] == "percent":
        return round(100 * wanted / len(offspring))
    return round(p["n"] * wanted / len(offspring))


CONTROL_JOBS = {
    "cerebrum": "Conscious thought, memory and reasoning",
    "cerebellum": "Balance and the coordination of movement",
    "medulla": "Control of breathing rate and heart rate",
    "sensory neuron": "Carries impulses from a receptor to the central nervous system",
    "relay neuron": "Carries impulses from the sensory neuron to the motor neuron inside the central nervous system",
    "motor neuron": "Carries impulses from the central nervous system to an effector",
    "synapse": "A tiny gap between neurons, crossed by chemicals",
    "receptor": "Detects the stimulus",
    "effector": "Carries out the response",
    "insulin": "A hormone that makes the liver convert glucose into glycogen",
    "glucagon": "A hormone that makes the liver convert glycogen into glucose",
    "glycogen": "A storage carbohydrate made from excess glucose",
    "pancreas": "Detects the blood glucose level and releases insulin or glucagon",
    "liver": "Stores excess glucose as glycogen",
    "glucose": "The sugar carried in the blood and used in respiration",
}


def _control_communication(p: dict) -> str:
    return p["part"].capitalize() if p["ask"] == "name" else CONTROL_JOBS[p["part"]]


TRANSPORT_JOBS = {
    "artery": "Carries blood away from the heart at high pressure",
    "vein": "Carries blood back to the heart at low pressure, with valves to stop backflow",
    "capillary": "Exchanges materials with the tissues through a wall one cell thick",
    "red blood cell": "Carries oxygen around the body",
    "plasma": "Carries dissolved glucose, carbon dioxide and hormones",
    "haemoglobin": "Combines with oxygen in the lungs and releases it in the tissues",
    "xylem": "Carries water and minerals from the roots to the leaves",
    "phloem": "Carries sugar from the leaves to the rest of the plant",
    "stomata": "Let carbon dioxide into the leaf and water vapour out",
    "guard cells": "Open and close the stomata",
    "root hair cells": "Absorb water from the soil through a large surface area",
    "lignin": "Strengthens the walls of xylem vessels",
    "aorta": "Carries oxygenated blood from the left ventricle to the body",
    "pulmonary artery": "Carries deoxygenated blood from the right ventricle to the lungs",
    "pulmonary vein": "Carries oxygenated blood from the lungs to the left atrium",
    "vena cava": "Carries deoxygenated blood from the body to the right atrium",
    "coronary artery": "Supplies the heart muscle with oxygenated blood",
    "phagocyte": "Engulfs and digests pathogens",
    "lymphocyte": "Produces antibodies against a particular pathogen",
    "alveoli": "Air sacs in the lungs where gas exchange takes place",
    "villi": "Folds of the small intestine wall that absorb digested food",
}


def _transport_systems(p: dict) -> str:
    return p["part"].capitalize() if p["ask"] == "name" else TRANSPORT_JOBS[p["part"]]


def _rate_per_time(p: dict) -> float:
    ctx, t = p["ctx"], p["t"]
    if ctx == "bubble_readings":
        return _half_up(p["d"] / t, 1)                 # change in bubble position (mm) per minute
    if ctx == "mass_readings":
        return _half_up((p["d"] / 10) / t, 1)          # mass lost (g) per hour
    rate = p["r"] / 10
    if ctx in ("potometer", "growth", "yeast"):
        amount = rate * t
        return amount / t
    amount = rate * t / 60                              # counted in t seconds, or taken up in t minutes
    return amount * 60 / t


# --------------------------------------------------------------------------
# Life on Earth

ECOLOGY_MEANINGS = {
    "ecosystem": "All the organisms living in an area and the non-living parts of their environment",
    "population": "All the organisms of one species living in an area",
    "community": "All the populations of different species living in an area",
    "habitat": "The place where an organism lives",
    "niche": "The role an organism plays in a community, including the resources it uses and how it interacts with others",
    "biodiversity": "The variety of species and of genes in an ecosystem",
    "producer": "An organism that makes its own food by photosynthesis",
    "herbivore": "An animal that eats only plants",
    "carnivore": "An animal that eats only other animals",
    "omnivore": "An animal that eats both plants and animals",
    "biotic factor": "A living factor that affects biodiversity, such as grazing, predation or disease",
    "abiotic factor": "A non-living factor that affects biodiversity, such as temperature, light intensity or pH",
    "interspecific competition": "Competition between members of different species for the same resources",
    "intraspecific competition": "Competition between members of the same species for the same resources",
    "nitrogen-fixing bacteria": "Bacteria that turn nitrogen gas into compounds plants can use",
    "nitrifying bacteria": "Bacteria that turn ammonium compounds into nitrates",
    "denitrifying bacteria": "Bacteria that turn nitrates back into nitrogen gas",
    "decomposers": "Organisms that break down dead material and release ammonium compounds",
}


def _ecology_terms(p: dict) -> str:
    return p["word"].capitalize() if p["ask"] == "name" else ECOLOGY_MEANINGS[p["word"]]


def _energy_transfer(p: dict) -> float:
    start = p["e0"]
    if p["mode"] == "percent":
        gained = start * p["pct"] / 100
        return gained / start * 100
    if p["mode"] == "passed":
        energy = start
        for _ in range(2):                      # two links: first level -> second -> third
            energy = energy * p["pct"] / 100
        return energy
    lost = start * p["heat"] / 100 + start * p["waste"] / 100
    return (start - lost) / start * 100


QUADRAT_OFFSETS = [
    [0, 2, -1, 3, 1, -2, 4, 0], [1, -1, 2, 0, 3, -2, 1, 2], [-2, 3, 1, 0, -1, 4, 2, -3],
    [2, 0, -3, 1, 4, -1, 0, 3], [3, -2, 0, 2, -1, 1, 5, -2], [-1, 1, 4, -2, 0, 2, -3, 1],
    [0, -3, 2, 5, 1, 0, -1, 2], [4, 1, -2, 0, -1, 3, 2, -3], [-3, 2, 0, 1, 3, -1, 4, 1],
    [1, 4, -1, -2, 2, 0, 1, 3],
]


def _quadrat_sampling(p: dict) -> float:
    counts = [p["m"] + offset for offset in QUADRAT_OFFSETS[p["pat"]][:p["n"]]]
    average = sum(counts) / len(counts)
    if p["area"] == 40:                                  # the average is asked for
        return _half_up(average, 1)
    quadrats_in_area = p["area"] / (p["side"] ** 2)
    return round(average * quadrats_in_area)


def _simplest_ratio(p: dict) -> str:
    counts = [p["a"] * p["k"], p["b"] * p["k"]] + ([p["c"] * p["k"]] if p["c"] > 0 else [])
    common = 0
    for count in counts:
        common = math.gcd(common, count)
    return ":".join(str(count // common) for count in counts)


EVOLUTION_TERMS = {
    "d_selection": "natural selection", "d_adaptation": "adaptation", "d_mutation": "mutation",
    "d_speciation": "speciation", "d_species": "species", "d_pressure": "selection pressure",
    "d_barrier": "isolation barrier", "d_variation": "variation", "d_fertile": "fertile offspring",
    "d_indicator": "indicator species",
    "s_antibiotic": "natural selection", "s_origin": "mutation", "s_pressure": "selection pressure",
    "s_moths": "natural selection", "s_predation": "selection pressure", "s_species": "different species",
    "s_speciation": "speciation", "s_mrsa_allele": "adaptation", "s_mayfly": "indicator species",
    "s_isolation": "isolation",
}
# Physical separation is geographical; different conditions ecological; different courtship behavioural.
BARRIER_KIND = {
    "b_mountains": "geographical", "b_river": "geographical", "b_island": "geographical",
    "b_motorway": "geographical", "b_glacier": "geographical",
    "b_lake_depth": "ecological", "b_soil": "ecological", "b_salt": "ecological",
    "b_song": "behavioural", "b_fireflies": "behavioural", "b_dance": "behavioural",
}


def _evolution(p: dict) -> str:
    return BARRIER_KIND.get(p["q"]) or EVOLUTION_TERMS[p["q"]]


ORACLES = {
    "SQA.BIOL.N5.CELL_STRUCTURES": _cell_structures,
    "SQA.BIOL.N5.MEMBRANE_TRANSPORT": _membrane_transport,
    "SQA.BIOL.N5.RESPIRATION": _respiration,
    "SQA.BIOL.N5.PERCENTAGE_CHANGE": _percentage_change,
    "SQA.BIOL.N5.CELL_DIVISION": _cell_division,
    "SQA.BIOL.N5.MAGNIFICATION": _magnification,
    "SQA.BIOL.N5.GENETICS_TERMS": _genetics_terms,
    "SQA.BIOL.N5.MONOHYBRID_CROSS": _monohybrid_cross,
    "SQA.BIOL.N5.CONTROL_COMMUNICATION": _control_communication,
    "SQA.BIOL.N5.TRANSPORT_SYSTEMS": _transport_systems,
    "SQA.BIOL.N5.RATE_PER_TIME": _rate_per_time,
    "SQA.BIOL.N5.ECOLOGY_TERMS": _ecology_terms,
    "SQA.BIOL.N5.ENERGY_TRANSFER": _energy_transfer,
    "SQA.BIOL.N5.QUADRAT_SAMPLING": _quadrat_sampling,
    "SQA.BIOL.N5.SIMPLEST_RATIO": _simplest_ratio,
    "SQA.BIOL.N5.EVOLUTION": _evolution,
}
