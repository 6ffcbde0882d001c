"""Oracles for the SQA Higher Chemistry skills (SQA.CHEM.H.*).

Each answer is worked out from the chemistry in plain Python: formula masses
from the relative atomic masses the SQA data booklet gives (formulae are read
by a small parser here), enthalpy changes from enthalpies of combustion and
bond enthalpies, concentrations from mole ratios. Arithmetic is exact
(fractions) and rounded half up, as a mark scheme rounds, to the precision
the item's key is given to. Names and recall answers come from the rules of
systematic naming and from what the course teaches, written out here
independently of the blueprints. Nothing here reads the blueprints or calls
the project's helpers.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

# --------------------------------------------------------------------------
# Numbers


def _exact(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def _decimal(x) -> Decimal:
    f = _exact(x)
    with localcontext() as ctx:
        ctx.prec = 60
        return Decimal(f.numerator) / Decimal(f.denominator)


def _sig(x, figures: int = 3) -> float:
    """x rounded half up to significant figures."""
    d = _decimal(x)
    if d == 0:
        return 0.0
    exponent = d.adjusted() - figures + 1
    return float(d.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP))


def _places(x, decimals: int) -> float:
    """x rounded half up to decimal places."""
    return float(_decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


# --------------------------------------------------------------------------
# Controlling the rate


def _relative_rate(p: dict) -> float:
    t = p["t"]
    if p["mode"] == "time":
        # The stem quotes rate = 1/t exactly; the time is its reciprocal.
        return _sig(1 / (Fraction(1, t)))
    if p["mode"] == "average":
        return _sig(Fraction(p["dv"], t))
    return _sig(Fraction(1, t))


# --------------------------------------------------------------------------
# Periodicity (data booklet values)

COVALENT_RADIUS_PM = {
    "lithium": 134, "beryllium": 90, "boron": 82, "carbon": 77, "nitrogen": 75, "oxygen": 73, "fluorine": 71,
    "sodium": 154, "magnesium": 130, "aluminium": 118, "silicon": 111, "phosphorus": 106, "sulfur": 102,
    "chlorine": 99, "potassium": 196, "calcium": 174, "rubidium": 216, "strontium": 191, "caesium": 235,
    "barium": 198, "bromine": 114, "iodine": 133,
}
# First, second and third ionisation energies, kJ mol^-1.
IONISATION_KJ = {
    "lithium": (526, 7304, 11822), "beryllium": (906, 1763, 14855), "boron": (807, 2433, 3666),
    "carbon": (1093, 2359, 4627), "nitrogen": (1409, 2862, 4584), "oxygen": (1320, 3394, 5307),
    "fluorine": (1687, 3381, 6057), "sodium": (502, 4569, 6919), "magnesium": (744, 1457, 7739),
    "aluminium": (584, 1823, 2751), "silicon": (793, 1583, 3238), "phosphorus": (1018, 1909, 2918),
    "sulfur": (1006, 2258, 3363), "chlorine": (1257, 2304, 3828), "potassium": (425, 3058, 4418),
    "calcium": (596, 1152, 4918), "rubidium": (409,), "strontium": (556,), "caesium": (382,), "barium": (509,),
    "bromine": (1146,), "iodine": (1015,),
}
ELECTRONEGATIVITY = {
    "lithium": 1.0, "beryllium": 1.5, "boron": 2.0, "carbon": 2.5, "nitrogen": 3.0, "oxygen": 3.5, "fluorine": 4.0,
    "sodium": 0.9, "magnesium": 1.2, "aluminium": 1.5, "silicon": 1.8, "phosphorus": 2.2, "sulfur": 2.5,
    "chlorine": 3.0, "potassium": 0.8, "calcium": 1.0, "rubidium": 0.8, "strontium": 1.0, "caesium": 0.8,
    "barium": 0.9, "bromine": 2.8, "iodine": 2.6,
}
PERIOD_2 = ["lithium", "beryllium", "boron", "carbon", "nitrogen", "oxygen", "fluorine"]
PERIOD_3 = ["sodium", "magnesium", "aluminium", "silicon", "phosphorus", "sulfur", "chlorine"]
TREND_SETS = {
    "period2": PERIOD_2, "period3": PERIOD_3,
    "group1": ["lithium", "sodium", "potassium", "rubidium", "caesium"],
    "group2": ["beryllium", "magnesium", "calcium", "strontium", "barium"],
    "group7": ["fluorine", "chlorine", "bromine", "iodine"],
    "block_li": ["lithium", "beryllium", "sodium", "magnesium"],
    "block_na": ["sodium", "magnesium", "potassium", "calcium"],
    "block_k": ["potassium", "calcium", "rubidium", "strontium"],
    "block_b": ["boron", "carbon", "aluminium", "silicon"],
    "block_c": ["carbon", "nitrogen", "silicon", "phosphorus"],
    "block_n": ["nitrogen", "oxygen", "phosphorus", "sulfur"],
    "block_o": ["oxygen", "fluorine", "sulfur", "chlorine"],
    "block_be": ["beryllium", "boron", "magnesium", "aluminium"],
    "block_lib": ["lithium", "boron", "sodium", "aluminium"],
    "block_cn2": ["carbon", "oxygen", "silicon", "sulfur"],
}


def _periodic_trends(p: dict) -> str:
    offered = [TREND_SETS[p["series"]][int(k)] for k in p["combo"]]
    value = {"radius": COVALENT_RADIUS_PM, "ie": {e: v[0] for e, v in IONISATION_KJ.items()},
             "en": ELECTRONEGATIVITY}[p["prop"]]
    pick = max if p["extreme"] == "high" else min
    return pick(offered, key=lambda e: value[e])


RELATIVE_ATOMIC_MASS = {
    "H": "1.0", "Li": "6.9", "Be": "9.0", "C": "12.0", "N": "14.0", "O": "16.0", "Na": "23.0", "Mg": "24.3",
    "Al": "27.0", "S": "32.1", "Cr": "52.0", "Cl": "35.5", "K": "39.1", "Ca": "40.1", "Ti": "47.9", "Mn": "54.9", "Fe": "55.8",
    "Cu": "63.5", "Zn": "65.4", "Br": "79.9", "Ag": "107.9", "I": "126.9",
}
ELEMENT_SYMBOL = {"lithium": "Li", "beryllium": "Be", "sodium": "Na", "magnesium": "Mg", "aluminium": "Al",
                  "potassium": "K", "calcium": "Ca"}
# Metals of groups 1, 2 and 3 lose all their outer electrons.
OUTER_ELECTRONS = {"lithium": 1, "sodium": 1, "potassium": 1, "beryllium": 2, "magnesium": 2, "calcium": 2,
                   "aluminium": 3}


def _ionisation_energy(p: dict) -> float:
    energies = IONISATION_KJ[p["element"]]
    mode = p["mode"]
    if mode == "mass":
        removed = OUTER_ELECTRONS[p["element"]]
        moles = Fraction(str(p["grams"])) / Fraction(RELATIVE_ATOMIC_MASS[ELEMENT_SYMBOL[p["element"]]])
        return _sig(moles * sum(energies[:removed]))
    start = 1 if mode.startswith("ion_") else 0
    end = 2 if mode.endswith("2") else 3
    return float(sum(energies[start:end]))



# --------------------------------------------------------------------------
# Structure and bonding: classified by the rules the course teaches

METALS = {"li", "be", "na", "mg", "al", "k", "ca"}
NETWORK_ELEMENTS = {"b", "diamond", "graphite", "si"}          # group 3 and 4 elements of periods 2 and 3
NOBLE_GASES = {"he", "ne", "ar"}
MOLECULAR_ELEMENTS = {"h2", "n2", "o2", "f2", "cl2", "p4", "s8", "c60"}
# Compounds: (contains a metal, is a giant covalent structure)
COMPOUNDS = {"nacl": (True, False), "mgo": (True, False), "caf2": (True, False), "kbr": (True, False),
             "sio2": (False, True), "sic": (False, True), "glucose": (False, False), "water_compound": (False, False)}
# Molecules: (an H atom bonded to N, O or F, polar overall once the shape is taken into account)
MOLECULES = {
    "ch4": (False, False), "cl2f": (False, False), "n2f": (False, False), "br2": (False, False),
    "h2f": (False, False), "i2": (False, False), "octane": (False, False), "o2f": (False, False),
    "butane": (False, False), "hexane": (False, False), "co2": (False, False), "ccl4": (False, False),
    "hcl": (False, True), "hbr": (False, True), "chloroethane": (False, True), "chloromethane": (False, True),
    "bromoethane": (False, True), "chcl3": (False, True), "propanone": (False, True), "ethanal": (False, True),
    "methyl_ethanoate": (False, True), "h2s": (False, True), "so2": (False, True),
    "h2o": (True, True), "nh3": (True, True), "hf": (True, True), "methanol": (True, True), "ethanol": (True, True),
    "propan2ol": (True, True), "ethanoic": (True, True), "propanol": (True, True), "diol": (True, True),
}


def _bonding_forces(p: dict) -> str:
    case = p["case"]
    if case in MOLECULES:
        h_to_nof, polar = MOLECULES[case]
        if h_to_nof:
            return "hydrogen bonding"
        return "permanent dipole-permanent dipole interactions" if polar else "London dispersion forces"
    if case in METALS:
        return "metallic lattice"
    if case in NETWORK_ELEMENTS:
        return "covalent network"
    if case in NOBLE_GASES:
        return "monatomic"
    if case in MOLECULAR_ELEMENTS:
        return "covalent molecular"
    has_metal, giant = COMPOUNDS[case]
    if has_metal:
        return "ionic lattice"
    return "covalent network" if giant else "covalent molecular"



# --------------------------------------------------------------------------
# Systematic carbon chemistry

FRAGMENTS = {"f_oh": "hydroxyl", "f_cooh": "carboxyl", "f_co": "carbonyl", "f_coo": "ester link",
             "f_conh": "amide link", "f_nh2": "amino"}
FAMILIES = {"fam_alcohol": "alcohol", "fam_acid": "carboxylic acid", "fam_aldehyde": "aldehyde",
            "fam_ketone": "ketone", "fam_ester": "ester", "fam_alkene": "alkene", "fam_protein": "protein"}
GROUP_OF_FAMILY = {"alcohol": "hydroxyl", "carboxylic acid": "carboxyl", "aldehyde": "carbonyl", "ketone": "carbonyl",
                   "ester": "ester link", "alkene": "carbon-carbon double bond", "protein": "amide link"}
COMPOUNDS_NAMED = {"ethanol": "ethanol", "propan2ol": "propan-2-ol", "butan1ol": "butan-1-ol", "methanol": "methanol",
                   "ethanoic": "ethanoic acid", "propanoic": "propanoic acid", "butanoic": "butanoic acid",
                   "methanoic": "methanoic acid", "propanal": "propanal", "ethanal": "ethanal", "propanone": "propanone",
                   "butanone": "butanone", "methyl_ethanoate": "methyl ethanoate", "ethyl_propanoate": "ethyl propanoate",
                   "propene": "propene", "but1ene": "but-1-ene"}
# What the course teaches about each context.
CONTEXTS = {"h_fat": "ester link", "h_protein": "amide link", "h_glycerol": "hydroxyl", "h_fatty_acid": "carboxyl",
            "h_unsaturated": "carbon-carbon double bond", "h_secondary": "carbonyl", "h_ester_made": "ester link",
            "h_amino_acid": "amino", "h_aldehyde_oxidised": "carboxyl", "h_soap": "carboxylate",
            "h_dipeptide": "amide link", "h_primary": "carbonyl"}


def _family_from_name(name: str) -> str:
    """The homologous series a systematic name belongs to, from its ending."""
    if name.endswith("oic acid"):
        return "carboxylic acid"
    if name.endswith("oate"):
        return "ester"
    if name.endswith("ol"):
        return "alcohol"
    if name.endswith("one"):
        return "ketone"
    if name.endswith("al"):
        return "aldehyde"
    if name.endswith("ene"):
        return "alkene"
    raise ValueError(name)


def _functional_group(p: dict) -> str:
    case = p["case"]
    if case in FRAGMENTS:
        return FRAGMENTS[case]
    if case in FAMILIES:
        return GROUP_OF_FAMILY[FAMILIES[case]]
    if case in COMPOUNDS_NAMED:
        return GROUP_OF_FAMILY[_family_from_name(COMPOUNDS_NAMED[case])]
    return CONTEXTS[case]



# What happens in each described reaction: (molecules joined with water lost, split by water,
# O:H ratio up, O:H ratio down, small molecule added across C=C) or a named kind.
REACTION_KIND = {
    "c_ester": "join", "c_protein": "join", "c_fat": "join", "c_dipeptide": "join", "c_methyl": "join",
    "h_ester": "split", "h_protein": "split", "h_fat": "split", "h_dipeptide": "split", "h_ethyl": "split",
    "saponification": "split",                      # alkaline hydrolysis of a fat
    "o_primary": "ratio_up", "o_fehling": "ratio_up", "o_tollens": "ratio_up", "o_secondary": "ratio_up",
    "o_rancid": "ratio_up", "o_ratio": "ratio_up", "r_ratio": "ratio_down", "r_ketone": "ratio_down",
    "a_hydrogenation": "add", "a_bromine": "add", "a_hydration": "add",
    "fr_initiation": "radicals_made", "fr_initiation2": "radicals_made",
    "fr_propagation": "radical_passed_on", "fr_propagation2": "radical_passed_on", "fr_propagation3": "radical_passed_on",
    "fr_termination": "radicals_joined", "fr_termination2": "radicals_joined", "fr_termination3": "radicals_joined",
    "neutralisation": "acid_alkali", "neutralisation2": "acid_alkali", "dehydration": "water_removed",
}
REACTION_NAME = {"join": "condensation", "split": "hydrolysis", "ratio_up": "oxidation", "ratio_down": "reduction",
                 "add": "addition", "radicals_made": "initiation", "radical_passed_on": "propagation",
                 "radicals_joined": "termination", "acid_alkali": "neutralisation", "water_removed": "dehydration"}


def _reaction_type(p: dict) -> str:
    return REACTION_NAME[REACTION_KIND[p["case"]]]



# --------------------------------------------------------------------------
# Esters: systematic names from chain lengths

STEMS = {1: "meth", 2: "eth", 3: "prop", 4: "but", 5: "pent", 6: "hex"}


def _alcohol_name(carbons: int) -> str:
    # Straight-chain primary alcohols: the -OH on carbon 1 (numbered from propanol on).
    return f"{STEMS[carbons]}anol" if carbons < 3 else f"{STEMS[carbons]}an-1-ol"


def _ester_naming(p: dict) -> str:
    alc, acid = p["alc"], p["acid"]
    if p["mode"] == "parts":
        return f"{_alcohol_name(alc)} and {STEMS[acid]}anoic acid"
    return f"{STEMS[alc]}yl {STEMS[acid]}anoate"



# --------------------------------------------------------------------------
# Oxidation of alcohols and aldehydes: classes and products from the names

_ALCOHOL = re.compile(r"^(?:(\d)-methyl)?(meth|eth|prop|but|pent|hex)an(?:-(\d))?-?ol$")
_CHAIN = {"meth": 1, "eth": 2, "prop": 3, "but": 4, "pent": 5, "hex": 6}


def _alcohol_class(name: str) -> str:
    m = _ALCOHOL.match(name)
    methyl, stem, oh = m.group(1), m.group(2), m.group(3)
    position = int(oh) if oh else 1
    if position == 1 or position == _CHAIN[stem]:
        return "primary"
    return "tertiary" if methyl and int(methyl) == position else "secondary"


def _oxidised(name: str, fully: bool = False) -> str:
    """The product of oxidising an alcohol (first product, or fully) or an aldehyde."""
    if name.endswith("al"):
        return name[:-2] + "oic acid"
    m = _ALCOHOL.match(name)
    methyl, stem, oh = m.group(1), m.group(2), m.group(3)
    prefix = f"{methyl}-methyl" if methyl else ""
    if _alcohol_class(name) == "primary":
        return f"{prefix}{stem}an" + ("oic acid" if fully else "al")
    if not methyl and _CHAIN[stem] <= 4:
        return f"{stem}anone"          # propanone, butanone: only one place for the C=O
    return f"{prefix}{stem}an-{oh}-one"


OXIDATION_SUBSTANCE = {
    "s_propan2ol": "propan-2-ol", "s_butan2ol": "butan-2-ol", "s_pentan2ol": "pentan-2-ol",
    "s_pentan3ol": "pentan-3-ol", "s_hexan2ol": "hexan-2-ol", "a_propanal": "propanal", "a_butanal": "butanal",
    "a_pentanal": "pentanal", "a_hexanal": "hexanal", "b_3mb2ol": "3-methylbutan-2-ol",
    "b_2mp1ol": "2-methylpropan-1-ol", "b_3mb1ol": "3-methylbutan-1-ol", "b_2mb1ol": "2-methylbutan-1-ol",
    "b_4mp2ol": "4-methylpentan-2-ol",
}
FULLY_OXIDISED = {"b_2mb1ol"}
# The alcohols offered when the question asks which one behaves in a given way.
OFFERED = {
    "t_c4": ["2-methylpropan-2-ol", "butan-1-ol", "butan-2-ol", "2-methylpropan-1-ol"],
    "t_c5": ["2-methylbutan-2-ol", "pentan-1-ol", "pentan-2-ol", "3-methylbutan-2-ol"],
    "t_c6": ["3-methylpentan-3-ol", "hexan-1-ol", "hexan-3-ol", "3-methylpentan-2-ol"],
    "k_c4": ["butan-2-ol", "butan-1-ol", "2-methylpropan-2-ol", "2-methylpropan-1-ol"],
    "k_c5": ["pentan-3-ol", "pentan-1-ol", "2-methylbutan-2-ol", "3-methylbutan-1-ol"],
    "al_c4": ["butan-1-ol", "butan-2-ol", "2-methylpropan-2-ol", "pentan-3-ol"],
    "al_c5": ["3-methylbutan-1-ol", "pentan-2-ol", "2-methylbutan-2-ol", "pentan-3-ol"],
}
WANTED_CLASS = {"t": "tertiary", "k": "secondary", "al": "primary"}


def _alcohol_oxidation(p: dict) -> str:
    case = p["case"]
    if case in OFFERED:
        wanted = WANTED_CLASS[case.split("_")[0]]
        (only,) = [a for a in OFFERED[case] if _alcohol_class(a) == wanted]
        return only
    kind, _, rest = case.partition("_")
    if case in OXIDATION_SUBSTANCE:
        return _oxidised(OXIDATION_SUBSTANCE[case], fully=case in FULLY_OXIDISED)
    name = {"ethanol": "ethanol", "propan1ol": "propan-1-ol", "butan1ol": "butan-1-ol",
            "pentan1ol": "pentan-1-ol", "hexan1ol": "hexan-1-ol"}[rest]
    return _oxidised(name, fully=kind == "f")



# --------------------------------------------------------------------------
# Chemical energy

WATER_C = Fraction("4.18")        # kJ kg^-1 °C^-1
ENTHALPY_OF_COMBUSTION = {        # kJ mol^-1 (data booklet)
    "hydrogen": -286, "carbon": -394, "methane": -891, "ethane": -1561, "propane": -2219, "butane": -2878,
    "pentane": -3509, "hexane": -4163, "ethene": -1411, "propene": -2058, "but-1-ene": -2717, "ethyne": -1301,
    "benzene": -3268, "cyclohexane": -3920, "methanol": -726, "ethanol": -1367, "propan-1-ol": -2021,
    "butan-1-ol": -2676, "ethanoic acid": -876, "glucose": -2803,
}
ENTHALPY_OF_SOLUTION = {"ammonium nitrate": Fraction("25.7"), "potassium chloride": Fraction("17.2"),
                        "ammonium chloride": Fraction("14.8"), "potassium nitrate": Fraction("34.9")}
NEUTRALISATION = Fraction("-57.3")
SUBSTANCE_FORMULA = {"methanol": "CH3OH", "ethanol": "C2H5OH", "propan-1-ol": "C3H7OH", "butan-1-ol": "C4H9OH",
                     "ammonium nitrate": "NH4NO3", "potassium chloride": "KCl", "ammonium chloride": "NH4Cl",
                     "potassium nitrate": "KNO3"}


def formula_mass(formula: str) -> Fraction:
    """Gram formula mass from a formula such as C2H5OH, Ca(OH)2 or CuSO4, with data booklet masses."""
    def parse(text: str, i: int) -> tuple[Fraction, int]:
        total = Fraction(0)
        while i < len(text) and text[i] != ")":
            if text[i] == "(":
                inner, i = parse(text, i + 1)
                i += 1
                m = re.match(r"\d*", text[i:])
                total += inner * int(m.group() or 1)
                i += len(m.group())
                continue
            m = re.match(r"([A-Z][a-z]?)(\d*)", text[i:])
            total += Fraction(RELATIVE_ATOMIC_MASS[m.group(1)]) * int(m.group(2) or 1)
            i += len(m.group())
        return total, i
    mass, _ = parse(formula, 0)
    return mass


def _enthalpy_change(p: dict) -> float:
    mode = p["mode"]
    substance = p["substance"]
    if mode == "neutralisation":
        kilograms = Fraction(p["va"] + p["vb"], 1000)
        moles = _exact(p["conc"]) * min(p["va"], p["vb"]) / 1000     # the reactant that runs out
        caught = Fraction("0.86") + (_exact(p["eff"]) - Fraction("0.5")) * Fraction("0.4")
        true_magnitude = -NEUTRALISATION
    else:
        kilograms = Fraction(p["water"], 1000)
        if mode == "given_moles":
            moles = _exact(p["moles"])
        else:
            moles = _exact(p["grams"]) / formula_mass(SUBSTANCE_FORMULA[substance])
        if substance in ENTHALPY_OF_SOLUTION:
            caught = Fraction("0.86") + (_exact(p["eff"]) - Fraction("0.5")) * Fraction("0.4")
            true_magnitude = ENTHALPY_OF_SOLUTION[substance]
        else:
            caught = _exact(p["eff"])
            true_magnitude = -ENTHALPY_OF_COMBUSTION[substance]
    # The temperature change the item reports (to 0.1 °C), from the energy the experiment caught.
    rise = Fraction(str(_places(caught * true_magnitude * moles / (WATER_C * kilograms), 1)))
    energy = WATER_C * kilograms * rise
    endothermic = substance in ENTHALPY_OF_SOLUTION and mode == "mass"
    return _sig((energy if endothermic else -energy) / moles)



COMPOUND_FORMULA = {
    "methane": "CH4", "ethane": "C2H6", "propane": "C3H8", "butane": "C4H10", "pentane": "C5H12", "hexane": "C6H14",
    "ethene": "C2H4", "propene": "C3H6", "but-1-ene": "C4H8", "ethyne": "C2H2", "benzene": "C6H6",
    "cyclohexane": "C6H12", "methanol": "CH4O", "ethanol": "C2H6O", "propan-1-ol": "C3H8O", "butan-1-ol": "C4H10O",
    "ethanoic acid": "C2H4O2", "glucose": "C6H12O6",
}


def _atoms(formula: str) -> dict:
    counts: dict = {}
    for symbol, n in re.findall(r"([A-Z][a-z]?)(\d*)", formula):
        counts[symbol] = counts.get(symbol, 0) + int(n or 1)
    return counts


def _hess(reactants: dict, products: dict) -> Fraction:
    """Delta H from enthalpies of combustion: burn the reactants, un-burn the products (O2 and water do not burn)."""
    burn = lambda side: sum(Fraction(n) * ENTHALPY_OF_COMBUSTION.get(s, 0) for s, n in side.items())  # noqa: E731
    return burn(reactants) - burn(products)


def _formation(compound: str) -> Fraction:
    atoms = _atoms(COMPOUND_FORMULA[compound])
    return _hess({"carbon": atoms["C"], "hydrogen": Fraction(atoms["H"], 2)}, {compound: 1})


ADDITIONS = {   # reactant, moles of hydrogen (or water), product
    "h_ethene": ("ethene", "hydrogen", 1, "ethane"), "h_propene": ("propene", "hydrogen", 1, "propane"),
    "h_butene": ("but-1-ene", "hydrogen", 1, "butane"), "h_ethyne2": ("ethyne", "hydrogen", 2, "ethane"),
    "h_ethyne1": ("ethyne", "hydrogen", 1, "ethene"), "h_benzene": ("benzene", "hydrogen", 3, "cyclohexane"),
    "w_ethene": ("ethene", "water", 1, "ethanol"),
}
HESS_COMPOUND = {"methane": "methane", "ethane": "ethane", "propane": "propane", "butane": "butane",
                 "pentane": "pentane", "hexane": "hexane", "ethene": "ethene", "propene": "propene",
                 "butene": "but-1-ene", "ethyne": "ethyne", "benzene": "benzene", "cyclohexane": "cyclohexane",
                 "methanol": "methanol", "ethanol": "ethanol", "propanol": "propan-1-ol", "butanol": "butan-1-ol",
                 "ethanoic": "ethanoic acid", "glucose": "glucose"}


def _hess_law(p: dict) -> int:
    case = p["case"]
    if case in ADDITIONS:
        start, added, moles, product = ADDITIONS[case]
        forward = _hess({start: 1, added: moles}, {product: 1})
        return int(forward * p["direction"])
    kind, _, name = case.partition("_")
    compound = HESS_COMPOUND[name]
    if kind == "f":
        return int(_formation(compound))
    # Combustion from the formation enthalpy the item quotes (itself from the booklet's combustion values):
    # elements -> compound (formation), then the elements burned: combustion = burn(elements) - formation.
    atoms = _atoms(COMPOUND_FORMULA[compound])
    elements = atoms["C"] * ENTHALPY_OF_COMBUSTION["carbon"] + Fraction(atoms["H"], 2) * ENTHALPY_OF_COMBUSTION["hydrogen"]
    return int(elements - _formation(compound))



BOND_ENTHALPY = {"H-H": 436, "Cl-Cl": 243, "Br-Br": 194, "I-I": 151, "F-F": 159, "O=O": 498, "N#N": 945,
                 "H-Cl": 432, "H-Br": 366, "H-I": 298, "H-F": 570, "C-H": 412, "C-C": 348, "C=C": 612, "C#C": 838,
                 "C-O": 360, "C=O": 743, "O-H": 463, "N-H": 388, "N-N": 163, "C-Cl": 338, "C-Br": 276, "C-F": 484}
# Every bond in each molecule, from its structure.
MOLECULE_BONDS = {
    "H2": {"H-H": 1}, "Cl2": {"Cl-Cl": 1}, "Br2": {"Br-Br": 1}, "I2": {"I-I": 1}, "F2": {"F-F": 1},
    "O2": {"O=O": 1}, "N2": {"N#N": 1}, "HCl": {"H-Cl": 1}, "HBr": {"H-Br": 1}, "HI": {"H-I": 1}, "HF": {"H-F": 1},
    "NH3": {"N-H": 3}, "H2O": {"O-H": 2}, "CO2": {"C=O": 2}, "N2H4": {"N-N": 1, "N-H": 4},
    "CH4": {"C-H": 4}, "C2H6": {"C-C": 1, "C-H": 6}, "C3H8": {"C-C": 2, "C-H": 8}, "C4H10": {"C-C": 3, "C-H": 10},
    "C2H4": {"C=C": 1, "C-H": 4}, "C3H6": {"C=C": 1, "C-C": 1, "C-H": 6}, "C2H2": {"C#C": 1, "C-H": 2},
    "CH3OH": {"C-H": 3, "C-O": 1, "O-H": 1}, "C2H5OH": {"C-C": 1, "C-H": 5, "C-O": 1, "O-H": 1},
    "CH3Cl": {"C-H": 3, "C-Cl": 1}, "CH3Br": {"C-H": 3, "C-Br": 1}, "CH3F": {"C-H": 3, "C-F": 1},
    "C2H5Cl": {"C-C": 1, "C-H": 5, "C-Cl": 1}, "C2H5Br": {"C-C": 1, "C-H": 5, "C-Br": 1},
    "C2H4Cl2": {"C-C": 1, "C-H": 4, "C-Cl": 2}, "C2H4Br2": {"C-C": 1, "C-H": 4, "C-Br": 2},
    "C3H6Br2": {"C-C": 2, "C-H": 6, "C-Br": 2},
}
BOND_REACTIONS = {   # reactants, products (moles of each molecule)
    "e_hcl": ({"H2": 1, "Cl2": 1}, {"HCl": 2}), "e_hbr": ({"H2": 1, "Br2": 1}, {"HBr": 2}),
    "e_hi": ({"H2": 1, "I2": 1}, {"HI": 2}), "e_hf": ({"H2": 1, "F2": 1}, {"HF": 2}),
    "e_nh3": ({"N2": 1, "H2": 3}, {"NH3": 2}), "e_h2o": ({"H2": 2, "O2": 1}, {"H2O": 2}),
    "e_h2o_half": ({"H2": 1, "O2": Fraction(1, 2)}, {"H2O": 1}),
    "e_dhcl": ({"HCl": 2}, {"H2": 1, "Cl2": 1}), "e_dhbr": ({"HBr": 2}, {"H2": 1, "Br2": 1}),
    "e_dhi": ({"HI": 2}, {"H2": 1, "I2": 1}), "e_dnh3": ({"NH3": 2}, {"N2": 1, "H2": 3}),
    "m_ethene_h2": ({"C2H4": 1, "H2": 1}, {"C2H6": 1}), "m_ethene_cl2": ({"C2H4": 1, "Cl2": 1}, {"C2H4Cl2": 1}),
    "m_ethene_br2": ({"C2H4": 1, "Br2": 1}, {"C2H4Br2": 1}), "m_ethene_hcl": ({"C2H4": 1, "HCl": 1}, {"C2H5Cl": 1}),
    "m_ethene_hbr": ({"C2H4": 1, "HBr": 1}, {"C2H5Br": 1}), "m_ethene_h2o": ({"C2H4": 1, "H2O": 1}, {"C2H5OH": 1}),
    "m_propene_h2": ({"C3H6": 1, "H2": 1}, {"C3H8": 1}), "m_propene_br2": ({"C3H6": 1, "Br2": 1}, {"C3H6Br2": 1}),
    "m_methane_cl2": ({"CH4": 1, "Cl2": 1}, {"CH3Cl": 1, "HCl": 1}),
    "m_methane_br2": ({"CH4": 1, "Br2": 1}, {"CH3Br": 1, "HBr": 1}),
    "m_methane_f2": ({"CH4": 1, "F2": 1}, {"CH3F": 1, "HF": 1}),
    "m_ethane_cl2": ({"C2H6": 1, "Cl2": 1}, {"C2H5Cl": 1, "HCl": 1}),
    "m_ethyne_h2": ({"C2H2": 1, "H2": 1}, {"C2H4": 1}), "m_ethyne_2h2": ({"C2H2": 1, "H2": 2}, {"C2H6": 1}),
    "h_methane": ({"CH4": 1, "O2": 2}, {"CO2": 1, "H2O": 2}),
    "h_ethane": ({"C2H6": 1, "O2": Fraction(7, 2)}, {"CO2": 2, "H2O": 3}),
    "h_propane": ({"C3H8": 1, "O2": 5}, {"CO2": 3, "H2O": 4}),
    "h_butane": ({"C4H10": 1, "O2": Fraction(13, 2)}, {"CO2": 4, "H2O": 5}),
    "h_ethene": ({"C2H4": 1, "O2": 3}, {"CO2": 2, "H2O": 2}),
    "h_propene": ({"C3H6": 1, "O2": Fraction(9, 2)}, {"CO2": 3, "H2O": 3}),
    "h_ethyne": ({"C2H2": 1, "O2": Fraction(5, 2)}, {"CO2": 2, "H2O": 1}),
    "h_methanol": ({"CH3OH": 1, "O2": Fraction(3, 2)}, {"CO2": 1, "H2O": 2}),
    "h_ethanol": ({"C2H5OH": 1, "O2": 3}, {"CO2": 2, "H2O": 3}),
    "h_hydrazine": ({"N2H4": 1, "O2": 1}, {"N2": 1, "H2O": 2}),
}


def _bond_energy(side: dict) -> Fraction:
    return sum(Fraction(n) * k * BOND_ENTHALPY[b] for m, n in side.items() for b, k in MOLECULE_BONDS[m].items())


def _bond_enthalpy(p: dict) -> int:
    reactants, products = BOND_REACTIONS[p["case"]]
    change = _bond_energy(reactants) - _bond_energy(products)     # every bond broken, every bond made
    assert change.denominator == 1
    return int(change)



# --------------------------------------------------------------------------
# Getting the most from reactants

GAS_FORMULA = {"hydrogen": "H2", "oxygen": "O2", "nitrogen": "N2", "carbon dioxide": "CO2", "methane": "CH4",
               "chlorine": "Cl2", "ammonia": "NH3", "sulfur dioxide": "SO2"}
# Reactant formula, gas made, and the balanced equation's coefficients (reactant, gas).
GAS_REACTIONS = {
    "mg_hcl": ("Mg", "H2", 1, 1), "zn_hcl": ("Zn", "H2", 1, 1), "caco3_hcl": ("CaCO3", "CO2", 1, 1),
    "mgco3_heat": ("MgCO3", "CO2", 1, 1), "h2o2": ("H2O2", "O2", 2, 1), "na_water": ("Na", "H2", 2, 1),
    "kclo3": ("KClO3", "O2", 2, 3), "nahco3": ("NaHCO3", "CO2", 2, 1), "propane": ("C3H8", "CO2", 1, 3),
}


def _molar_volume(p: dict) -> float:
    vm = _exact(p["vm"])
    if p["mode"] == "mass":
        moles = Fraction(p["vol"], 1000) / vm
        return _sig(moles * formula_mass(GAS_FORMULA[p["gas"]]))
    if p["mode"] == "volume":
        moles = _exact(p["grams"]) / formula_mass(GAS_FORMULA[p["gas"]])
    else:
        reactant, _, r_coef, g_coef = GAS_REACTIONS[p["reaction"]]
        moles = _exact(p["grams"]) / formula_mass(reactant) * Fraction(g_coef, r_coef)
    litres = moles * vm
    return _sig(litres * 1000 if litres < 1 else litres)      # small volumes are asked for in cm^3



# Solid, acid, moles of acid per mole of solid, salt, gas ("" if none).
ACID_REACTIONS = {
    "mg_h2so4": ("Mg", "H2SO4", 1, "MgSO4", "H2"), "zn_h2so4": ("Zn", "H2SO4", 1, "ZnSO4", "H2"),
    "cuo_h2so4": ("CuO", "H2SO4", 1, "CuSO4", ""), "mgo_h2so4": ("MgO", "H2SO4", 1, "MgSO4", ""),
    "mg_hcl": ("Mg", "HCl", 2, "MgCl2", "H2"), "zn_hcl": ("Zn", "HCl", 2, "ZnCl2", "H2"),
    "caco3_hcl": ("CaCO3", "HCl", 2, "CaCl2", "CO2"), "mgo_hcl": ("MgO", "HCl", 2, "MgCl2", ""),
}


def _excess_reactant(p: dict) -> float:
    solid, _, acid_per_solid, salt, gas = ACID_REACTIONS[p["reaction"]]
    n_solid = _exact(p["grams"]) / formula_mass(solid)
    n_acid = _exact(p["conc"]) * Fraction(p["vol"], 1000)
    # Moles of solid that can react: all of it, or as much as the acid allows.
    reacting = min(n_solid, n_acid / acid_per_solid)
    if p["mode"] == "left":
        return _sig((n_solid - reacting) * formula_mass(solid))
    product = salt if p["which"] == "salt" else gas
    return _sig(reacting * formula_mass(product))      # one mole of product per mole of solid



# Limiting reactant, product, moles of product per mole of reactant.
YIELD_REACTIONS = {
    "ethyl_ethanoate": ("C2H5OH", "C4H8O2", 1), "methyl_ethanoate": ("CH3OH", "C3H6O2", 1),
    "ethyl_propanoate": ("C3H6O2", "C5H10O2", 1), "propyl_ethanoate": ("C3H7OH", "C5H10O2", 1),
    "methyl_butanoate": ("C4H8O2", "C5H10O2", 1), "pentyl_ethanoate": ("C5H11OH", "C7H14O2", 1),
    "aspirin": ("C7H6O3", "C9H8O4", 1), "ethanol": ("C2H4", "C2H5OH", 1), "lime": ("CaCO3", "CaO", 1),
    "magnesium_oxide": ("Mg", "MgO", 1), "iron": ("Fe2O3", "Fe", 2), "ammonia": ("N2", "NH3", 2),
}


def _percentage_yield(p: dict) -> float:
    reactant, product, ratio = YIELD_REACTIONS[p["reaction"]]
    pct = _exact(p["pct"])
    if p["mode"] == "needed":
        theoretical = _exact(p["target"]) * 100 / pct
        return _sig(theoretical / formula_mass(product) / ratio * formula_mass(reactant))
    theoretical = _exact(p["grams"]) / formula_mass(reactant) * ratio * formula_mass(product)
    if p["mode"] == "obtained":
        return _sig(theoretical * pct / 100)
    actual = _exact(_places(theoretical * pct / 100, 2))        # the mass the item reports obtaining
    return _sig(actual / theoretical * 100)



# Balanced equations: reactants (formula, moles) and the desired product (formula, moles).
ATOM_ECONOMY_REACTIONS = {
    "lime": ([("CaCO3", 1)], ("CaO", 1)),
    "dehydration": ([("C2H5OH", 1)], ("C2H4", 1)),
    "hydration": ([("C2H4", 1), ("H2O", 1)], ("C2H5OH", 1)),
    "ester": ([("CH3COOH", 1), ("C2H5OH", 1)], ("CH3COOC2H5", 1)),
    "chloromethane": ([("CH4", 1), ("Cl2", 1)], ("CH3Cl", 1)),
    "copper_sulfate": ([("CuO", 1), ("H2SO4", 1)], ("CuSO4", 1)),
    "aspirin": ([("C7H6O3", 1), ("C4H6O3", 1)], ("C9H8O4", 1)),
    "zinc_hydrogen": ([("Zn", 1), ("H2SO4", 1)], ("H2", 1)),
    "zinc_sulfate": ([("Zn", 1), ("H2SO4", 1)], ("ZnSO4", 1)),
    "fermentation_ethanol": ([("C6H12O6", 1)], ("C2H5OH", 2)),
    "fermentation_co2": ([("C6H12O6", 1)], ("CO2", 2)),
    "steam_reforming": ([("CH4", 1), ("H2O", 1)], ("H2", 3)),
    "calcium_chloride": ([("CaCO3", 1), ("HCl", 2)], ("CaCl2", 1)),
    "magnesium_chloride": ([("Mg", 1), ("HCl", 2)], ("MgCl2", 1)),
    "magnesium_hydrogen": ([("Mg", 1), ("HCl", 2)], ("H2", 1)),
    "sodium_carbonate": ([("NaHCO3", 2)], ("Na2CO3", 1)),
    "peroxide": ([("H2O2", 2)], ("O2", 1)),
    "iron": ([("Fe2O3", 1), ("CO", 3)], ("Fe", 2)),
    "chlorine": ([("NaCl", 2), ("H2O", 2)], ("Cl2", 1)),
    "sodium_hydroxide": ([("NaCl", 2), ("H2O", 2)], ("NaOH", 2)),
    "ammonia": ([("NH4Cl", 2), ("Ca(OH)2", 1)], ("NH3", 2)),
    "titanium": ([("TiCl4", 1), ("Mg", 2)], ("Ti", 1)),
    "combustion_water": ([("H2", 2), ("O2", 1)], ("H2O", 2)),
    "copper_displacement": ([("AgNO3", 2), ("Cu", 1)], ("Ag", 2)),
}


def _atom_economy(p: dict) -> float:
    reactants, (product, moles) = ATOM_ECONOMY_REACTIONS[p["case"]]
    total = sum(n * formula_mass(f) for f, n in reactants)
    return _sig(moles * formula_mass(product) / total * 100)



# --------------------------------------------------------------------------
# Oxidising and reducing agents: each reactant with the oxidation number of its changing element before
# and after the reaction (Mn +7 in permanganate, Cr +6 in dichromate, O -1 in hydrogen peroxide, S +2 in
# thiosulfate, C +3 in oxalate, S +4 in sulfite).

REDOX_CHANGES = {
    "zn_cu": [("Zn", 0, 2), ("Cu²⁺", 2, 0)], "mg_cu": [("Mg", 0, 2), ("Cu²⁺", 2, 0)],
    "fe_cu": [("Fe", 0, 2), ("Cu²⁺", 2, 0)], "mg_zn": [("Mg", 0, 2), ("Zn²⁺", 2, 0)],
    "cu_ag": [("Cu", 0, 2), ("Ag⁺", 1, 0)], "zn_ag": [("Zn", 0, 2), ("Ag⁺", 1, 0)],
    "zn_h": [("Zn", 0, 2), ("H⁺", 1, 0)], "mg_h": [("Mg", 0, 2), ("H⁺", 1, 0)],
    "fe_ag": [("Fe", 0, 2), ("Ag⁺", 1, 0)], "mg_pb": [("Mg", 0, 2), ("Pb²⁺", 2, 0)],
    "al_cu": [("Al", 0, 3), ("Cu²⁺", 2, 0)], "zn_pb": [("Zn", 0, 2), ("Pb²⁺", 2, 0)],
    "cl_br": [("Cl₂", 0, -1), ("Br⁻", -1, 0)], "cl_i": [("Cl₂", 0, -1), ("I⁻", -1, 0)],
    "br_i": [("Br₂", 0, -1), ("I⁻", -1, 0)], "f_cl": [("F₂", 0, -1), ("Cl⁻", -1, 0)],
    "fe3_i": [("Fe³⁺", 3, 2), ("I⁻", -1, 0)], "cl_fe2": [("Cl₂", 0, -1), ("Fe²⁺", 2, 3)],
    "br_fe2": [("Br₂", 0, -1), ("Fe²⁺", 2, 3)], "i2_s2o3": [("I₂", 0, -1), ("S₂O₃²⁻", 2, Fraction(5, 2))],
    "fe3_zn": [("Fe³⁺", 3, 2), ("Zn", 0, 2)],
    "mno4_fe2": [("MnO₄⁻", 7, 2), ("Fe²⁺", 2, 3)], "cr2o7_fe2": [("Cr₂O₇²⁻", 6, 3), ("Fe²⁺", 2, 3)],
    "mno4_c2o4": [("MnO₄⁻", 7, 2), ("C₂O₄²⁻", 3, 4)], "h2o2_i": [("H₂O₂", -1, -2), ("I⁻", -1, 0)],
    "mno4_so3": [("MnO₄⁻", 7, 2), ("SO₃²⁻", 4, 6)], "cr2o7_so3": [("Cr₂O₇²⁻", 6, 3), ("SO₃²⁻", 4, 6)],
    "mno4_i": [("MnO₄⁻", 7, 2), ("I⁻", -1, 0)], "cr2o7_i": [("Cr₂O₇²⁻", 6, 3), ("I⁻", -1, 0)],
    "mno4_h2o2": [("MnO₄⁻", 7, 2), ("H₂O₂", -1, 0)], "h2o2_fe2": [("H₂O₂", -1, -2), ("Fe²⁺", 2, 3)],
}


def _oxidising_reducing(p: dict) -> str:
    # Reduced (oxidation number falls): the oxidising agent. Oxidised (it rises): the reducing agent.
    wanted = (lambda before, after: after < before) if p["ask"] == "oxidising" else (lambda before, after: after > before)
    (species,) = [s for s, before, after in REDOX_CHANGES[p["case"]] if wanted(before, after)]
    return species



# --------------------------------------------------------------------------
# Chemical analysis: titrations. Coefficients of the titrant and of the substance in the flask.

TITRATIONS = {
    "hcl_naoh": (1, 1), "naoh_hcl": (1, 1), "naoh_vinegar": (1, 1), "hno3_koh": (1, 1),
    "naoh_h2so4": (2, 1),     # H2SO4 + 2NaOH
    "h2so4_naoh": (1, 2), "hcl_na2co3": (2, 1), "h2so4_koh": (1, 2), "hcl_caoh2": (2, 1),
    "mno4_fe2": (1, 5),       # MnO4- + 5Fe2+
    "s2o3_i2": (2, 1),        # I2 + 2S2O3^2-
    "cr2o7_fe2": (1, 6), "mno4_c2o4": (2, 5), "mno4_h2o2": (2, 5), "i2_vitc": (1, 1),
}


def _titration(p: dict) -> float:
    titrant_coef, flask_coef = TITRATIONS[p["reaction"]]
    moles_titrant = _exact(p["conc_t"]) * _exact(p["titre"]) / 1000
    moles_flask = moles_titrant * Fraction(flask_coef, titrant_coef)
    return _sig(moles_flask / (_exact(p["pipette"]) / 1000))



# --------------------------------------------------------------------------
# Researching chemistry

# The three accurate titres of each results pattern, as offsets from the base titre in 0.05 cm^3.
TITRE_OFFSETS = {
    "a012": (0, 1, 2), "a021": (0, 2, 1), "a102": (1, 0, 2), "a030": (0, 3, 0), "a201": (2, 0, 1), "a003": (0, 0, 3),
    "a111": (1, 1, 1), "a312": (3, 1, 2), "a120": (1, 2, 0), "a300": (3, 0, 0), "a213": (2, 1, 3), "a033": (0, 3, 3),
    "b80_2": (8, 0, 2), "b0_2_9": (0, 2, 9), "b9_1_3": (9, 1, 3), "b0_8_2": (0, 8, 2), "b7_1_1": (7, 1, 1),
    "b2_0_10": (2, 0, 10), "b1_11_3": (1, 11, 3), "b12_2_2": (12, 2, 2), "bm7_0_2": (-7, 0, 2), "b0_m8_2": (0, -8, 2),
    "c012": (0, 1, 2), "c111": (1, 1, 1), "c80_2": (8, 0, 2), "c0_2_9": (0, 2, 9), "c0_8_2": (0, 8, 2),
    "c9_1_3": (9, 1, 3),
}


def _concordant_titres(p: dict) -> float:
    base = _exact(p["base"])
    titres = [base + Fraction(k, 20) for k in TITRE_OFFSETS[p["pattern"]]]     # the rough titre is never used
    # The largest set of accurate titres all within 0.2 cm^3 of each other.
    best = max((subset for subset in ([titres[i] for i in range(3) if mask >> i & 1] for mask in range(1, 8))
                if max(subset) - min(subset) <= Fraction(1, 5)), key=len)
    return _places(sum(best) / len(best), 2)



# The solids weighed out, water of crystallisation included.
STANDARD_SOLIDS = {"sodium carbonate": "Na2CO3(H2O)10", "oxalic acid": "H2C2O4(H2O)2", "copper(II) sulfate": "CuSO4(H2O)5",
                   "potassium hydrogen phthalate": "KHC8H4O4", "sodium chloride": "NaCl",
                   "potassium dichromate": "K2Cr2O7", "sodium thiosulfate": "Na2S2O3(H2O)5"}


def _standard_solution(p: dict) -> float:
    litres = Fraction(p["vol"], 1000)
    if p["mode"] == "dilution":
        moles = _exact(p["conc"]) * litres                 # unchanged by adding water
        return _sig(moles / _exact(p["stock"]) * 1000)
    gfm = formula_mass(STANDARD_SOLIDS[p["solute"]])
    if p["mode"] == "mass":
        return _sig(_exact(p["conc"]) * litres * gfm)
    return _sig(_exact(p["grams"]) / gfm / litres)



# The apparatus, technique or term each description is of, as the course names it.
LAB_NAMES = {
    "a_pipette": "pipette", "a_burette": "burette", "a_volumetric_flask": "volumetric flask",
    "a_water_bath": "water bath", "a_condenser": "condenser", "a_gas_syringe": "gas syringe", "a_balance": "balance",
    "a_measuring_cylinder": "measuring cylinder", "a_filler": "pipette filler", "a_conical_flask": "conical flask",
    "a_fume_cupboard": "fume cupboard",
    "t_distillation": "distillation", "t_filtration": "filtration", "t_reflux": "heating under reflux",
    "t_evaporation": "evaporation", "t_chromatography": "chromatography", "t_titration": "titration",
    "t_weighing_difference": "weighing by difference", "t_dilution": "dilution",
    "t_separating_funnel": "separating funnel", "t_over_water": "collection over water",
    "v_standard": "standard solution", "v_concordant": "concordant", "v_rough": "rough titration",
    "v_end_point": "end-point", "v_indicator": "indicator", "v_meniscus": "meniscus",
    "v_self_indicating": "self-indicating", "v_reliable": "they are reliable", "v_anomalous": "anomalous",
    "v_controlled": "controlled variables",
}


def _lab_techniques(p: dict) -> str:
    return LAB_NAMES[p["case"]]



def _reaction_profile(p: dict) -> int:
    reactants = p["R"]
    complex_ = reactants + p["ea"]                   # the top of the hump
    products = reactants + p["dh"]
    mode = p["mode"]
    if mode == "ea":
        return complex_ - reactants
    if mode == "dh":
        return products - reactants
    if mode == "ea_rev":
        return complex_ - products
    if mode == "cat":
        return (complex_ - p["cut"]) - reactants
    reverse = complex_ - products                    # quoted in the item; forward up, reverse back down
    return p["ea"] - reverse


ORACLES = {
    "SQA.CHEM.H.RELATIVE_RATE": _relative_rate,
    "SQA.CHEM.H.REACTION_PROFILE": _reaction_profile,
    "SQA.CHEM.H.PERIODIC_TRENDS": _periodic_trends,
    "SQA.CHEM.H.IONISATION_ENERGY": _ionisation_energy,
    "SQA.CHEM.H.BONDING_FORCES": _bonding_forces,
    "SQA.CHEM.H.FUNCTIONAL_GROUPS": _functional_group,
    "SQA.CHEM.H.REACTION_TYPES": _reaction_type,
    "SQA.CHEM.H.ESTER_NAMING": _ester_naming,
    "SQA.CHEM.H.ALCOHOL_OXIDATION": _alcohol_oxidation,
    "SQA.CHEM.H.ENTHALPY_CHANGE": _enthalpy_change,
    "SQA.CHEM.H.HESS_LAW": _hess_law,
    "SQA.CHEM.H.BOND_ENTHALPY": _bond_enthalpy,
    "SQA.CHEM.H.MOLAR_VOLUME": _molar_volume,
    "SQA.CHEM.H.EXCESS_REACTANT": _excess_reactant,
    "SQA.CHEM.H.PERCENTAGE_YIELD": _percentage_yield,
    "SQA.CHEM.H.ATOM_ECONOMY": _atom_economy,
    "SQA.CHEM.H.OXIDISING_REDUCING": _oxidising_reducing,
    "SQA.CHEM.H.TITRATION": _titration,
    "SQA.CHEM.H.CONCORDANT_TITRES": _concordant_titres,
    "SQA.CHEM.H.STANDARD_SOLUTION": _standard_solution,
    "SQA.CHEM.H.LAB_TECHNIQUES": _lab_techniques,
}
