public enum ChessCorePlaceholder {}
