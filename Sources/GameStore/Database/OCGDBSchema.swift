/// The SQL that makes an empty OCGDB game database: the same text as `schemas/ocgdb.sql` at
/// the package root (a test keeps the two equal). Kept in the source so that the executable
/// needs no resource files beside it.
enum OCGDBSchema {
    static let sql = """
        -- The OCGDB game database, as read by En Croissant (*.db3) and ocgdb (*.ocgdb.db3).
        -- Run once on an empty file; GameStore's `GameDatabase` executes this text as it is.
        -- Round and Result are TEXT: with INTEGER affinity, round 1.10 would become the number 1.1.

        CREATE TABLE Info (Name TEXT UNIQUE NOT NULL, Value TEXT);

        CREATE TABLE Events (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE);

        CREATE TABLE Sites (ID INTEGER PRIMARY KEY AUTOINCREMENT, Name TEXT UNIQUE);

        CREATE TABLE Players (ID INTEGER PRIMARY KEY, Name TEXT UNIQUE, Elo INTEGER);

        CREATE TABLE Games (
            ID INTEGER PRIMARY KEY AUTOINCREMENT,
            EventID INTEGER,
            SiteID INTEGER,
            Date TEXT,
            UTCTime TEXT,
            Round TEXT,
            WhiteID INTEGER,
            WhiteElo INTEGER,
            BlackID INTEGER,
            BlackElo INTEGER,
            WhiteMaterial INTEGER,
            BlackMaterial INTEGER,
            Result TEXT,
            TimeControl TEXT,
            ECO TEXT,
            PlyCount INTEGER,
            FEN TEXT,
            Moves BLOB,
            PawnHome BLOB,
            Moves2 BLOB DEFAULT NULL,
            Tags TEXT DEFAULT NULL,
            FOREIGN KEY (EventID) REFERENCES Events (ID),
            FOREIGN KEY (SiteID) REFERENCES Sites (ID),
            FOREIGN KEY (WhiteID) REFERENCES Players (ID),
            FOREIGN KEY (BlackID) REFERENCES Players (ID)
        );

        CREATE TABLE Comments (ID INTEGER PRIMARY KEY AUTOINCREMENT, GameID INTEGER, Ply INTEGER, Comment TEXT);

        CREATE INDEX GamesDate ON Games (Date);
        CREATE INDEX GamesWhiteID ON Games (WhiteID);
        CREATE INDEX GamesBlackID ON Games (BlackID);
        CREATE INDEX GamesResult ON Games (Result);
        CREATE INDEX GamesWhiteElo ON Games (WhiteElo);
        CREATE INDEX GamesBlackElo ON Games (BlackElo);
        CREATE INDEX GamesPlyCount ON Games (PlyCount);
        -- Finds an already stored copy of a game (same players, event, site, date, time and round)
        -- before its moves are compared.
        CREATE INDEX GamesIdentity ON Games (WhiteID, BlackID, EventID, SiteID, Date, UTCTime, Round);

        -- A game whose White, Black, Event or Site tag is absent points at ID 0.
        INSERT INTO Players (ID, Name, Elo) VALUES (0, 'Unknown', NULL);
        INSERT INTO Events (ID, Name) VALUES (0, 'Unknown');
        INSERT INTO Sites (ID, Name) VALUES (0, 'Unknown');

        INSERT INTO Info (Name, Value) VALUES ('Version', '1.0.0');
        INSERT INTO Info (Name, Value) VALUES ('Title', '');
        INSERT INTO Info (Name, Value) VALUES ('Description', '');
        INSERT INTO Info (Name, Value) VALUES ('Data Structure Version', '0.6');
        INSERT INTO Info (Name, Value) VALUES ('Variant', 'standard');
        INSERT INTO Info (Name, Value) VALUES ('GameCount', '0');
        INSERT INTO Info (Name, Value) VALUES ('PlayerCount', '1');
        INSERT INTO Info (Name, Value) VALUES ('EventCount', '1');
        INSERT INTO Info (Name, Value) VALUES ('SiteCount', '1');
        INSERT INTO Info (Name, Value) VALUES ('CommentCount', '0');

        """
}
