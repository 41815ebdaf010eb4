-- Chess games in Portable Game Notation.
vim.cmd([[autocmd BufNewFile,BufRead *.pgn,*.PGN setfiletype pgn]])
