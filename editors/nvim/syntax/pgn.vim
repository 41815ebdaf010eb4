" Vim syntax file
" Language:    PGN (Portable Game Notation), chess games
" Maintainer:  pgn-lsp
"
" The colours a PGN file has before pgn-lsp's semantic tokens come, and in a file too large for
" an editor that asks for the whole file's tokens (Neovim up to 0.11, files over 20 MB). The
" groups are linked as the server's tokens are coloured: tag names as properties, values as
" strings, move numbers as numbers, annotations as operators, comments as comments, results
" as keywords, commands in comments ([%clk 0:03:00]) as decorators.

if exists("b:current_syntax")
  finish
endif

syn case match
" Long lines of moves: colour from the start of the line, do not search back over pages.
syn sync minlines=20 maxlines=200

" Tag pairs: [Event "Casual game"]
syn region pgnTag matchgroup=pgnTagBracket start=/^\s*\[/ end=/\]/ oneline contains=pgnTagName,pgnTagValue
syn match pgnTagName /\[\@1<=\s*\zs[A-Za-z0-9_]\+/ contained
syn region pgnTagValue start=/"/ skip=/\\\\\|\\"/ end=/"/ contained oneline

" Movetext.
syn match pgnMoveNumber /\<\d\+\.\(\.\.\)\?/
syn match pgnNag /\$\d\+/
syn match pgnNag /[!?]\{1,2}/
syn match pgnResult /\(^\|\s\)\zs\(1-0\|0-1\|1\/2-1\/2\|\*\)\ze\(\s\|$\)/
syn match pgnVariation /[()]/

" Comments: { ... } over lines, ; to the end of the line, % lines escaped from the file.
syn region pgnComment start=/{/ end=/}/ contains=pgnCommand,@Spell
syn match pgnCommand /\[%[^\]]*\]/ contained
syn match pgnLineComment /;.*$/ contains=@Spell
syn match pgnEscape /^%.*$/

hi def link pgnTagBracket Delimiter
hi def link pgnTagName Identifier
hi def link pgnTagValue String
hi def link pgnMoveNumber Number
hi def link pgnNag Operator
hi def link pgnResult Keyword
hi def link pgnVariation Delimiter
hi def link pgnComment Comment
hi def link pgnLineComment Comment
hi def link pgnEscape Comment
hi def link pgnCommand PreProc

let b:current_syntax = "pgn"
