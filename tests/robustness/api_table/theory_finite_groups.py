"""theory.finite_groups (docs/limits.md): groups of order at most 720 (checked from the name before building), exact
character tables of at most 64 classes, Burnside at most 12 classes, partitions n <= 40, tableaux n <= 10, exact
projectors |G|^2 <= 200000 entries."""

from theory.finite_groups import character_table, symmetric_group

MODULE = "theory.finite_groups"

_S3 = symmetric_group(3)
_CT = character_table("S3")

BASELINE = {
    "CharacterTable": {"group": _S3, "names": _CT.names, "dims": _CT.dims, "values": _CT.values},
    "FiniteGroup": {"name": "S3", "labels": _S3.labels, "table": _S3.table, "kind": "symmetric", "n": 3},
    "adjacent_transpositions": {"G": "S3"},
    "as_group": {"G": "S3"},
    "burnside_character_table": {"G": "S3", "seed": 0, "max_tries": 20},
    "cayley_tree": {"G": "S3", "generators": [1, 2]},
    "character_table": {"G": "D4"},
    "check_totally_real": {"G": "S3", "source": "Thm 7.9"},
    "class_structure_constants": {"G": "S3"},
    "closed_form_irrep": {"G": "D4", "r": 4, "g": 2},
    "elementary_abelian_2_group": {"k": 3},
    "group_order": {"letter": "S", "num": 4},
    "is_totally_real": {"G": "S4"},
    "is_zero": {"x": 0},
    "isotypic_projector": {"G": "S3", "r": 2},
    "partitions": {"n": 4},
    "product_irrep_factors": {"G": "S3xZ2", "r": 3},
    "standard_tableaux": {"shape": (2, 1)},
    "young_orthogonal_generators": {"shape": (2, 1)},
}

REFUSED = [
    ("group_order", {"letter": "S", "num": 10**6}, "num"),
    ("group_order", {"letter": "S", "num": 7}, "num"),
    ("group_order", {"letter": "D", "num": 361}, "num"),
    ("group_order", {"letter": "Z", "num": 721}, "num"),
    ("as_group", {"G": "Z721"}, "group"),
    ("as_group", {"G": "S7"}, "group"),
    ("as_group", {"G": "S1000000"}, "group"),
    ("character_table", {"G": "D361"}, "group"),
    ("character_table", {"G": "Z65"}, "group"),
    ("burnside_character_table", {"G": "D7"}, "group"),
    ("elementary_abelian_2_group", {"k": 10}, "k"),
    ("isotypic_projector", {"G": "S6", "r": 1}, "G"),
    ("isotypic_projector", {"G": "Z1000000", "r": 1}, "group"),
    ("burnside_character_table", {"G": "S3", "max_tries": 1001}, "max_tries"),
    ("class_structure_constants", {"G": "Z65"}, "group"),
    ("partitions", {"n": 41}, "n"),
    ("standard_tableaux", {"shape": (11,)}, "shape"),
    ("young_orthogonal_generators", {"shape": (6, 5)}, "shape"),
]

NO_SIZE = {"direct_product": "variadic FiniteGroup factors built by this module"}
