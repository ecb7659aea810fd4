"""Pure league maths: ladder settings and the log fold, OpenSkill ratings, match scores (no Django)."""
