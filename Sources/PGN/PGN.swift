public enum PGNPlaceholder {}
