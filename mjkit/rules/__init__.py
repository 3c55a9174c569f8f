"""Rule sets as data: the fan catalogue and the rule sets built on it."""

from .catalogue import fan_catalogue
from .ruleset import RuleSet, get_rules, register_rules, rule_names, threshold

__all__ = ["RuleSet", "fan_catalogue", "get_rules", "register_rules", "rule_names",
           "threshold"]
