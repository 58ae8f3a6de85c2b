#!/usr/bin/env python3
"""Generate a SWE-agent .traj: Haskell parser library (cabal, hspec, failing QuickCheck property)."""
import json, random, os, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/work/blindset-F"
NAME = "swe-agent-haskell-toml-lite-roundtrip-escapes.traj"
FMT = "/work/blind-brief/formats/gpt4__pydicom__pydicom-1458.traj"
rng = random.Random(9001)
ROOT = "/toml-lite"

SYSTEM = json.load(open(FMT))["history"][0]["content"]

ISSUE = r"""render/parse round-trip fails for strings with control characters (QuickCheck prop_renderParseRoundTrip)
**Describe the bug**
The round-trip property in `test/Toml/Lite/RoundTripSpec.hs` fails intermittently on CI (it depends on the seed):

```
  test/Toml/Lite/RoundTripSpec.hs:34:5:
  1) Toml.Lite.RoundTrip render then parse is identity
       Falsified (after 37 tests and 4 shrinks):
         fromList [("a",VString "\DEL")]
         Left (ParseError "1:8:\n  |\n1 | a = \"\\u7f\"\n  |        ^\nunexpected '\"'\nexpecting hexadecimal digit\n")

  To rerun use: --match "/Toml.Lite.RoundTrip/render then parse is identity/" --seed 1203458923
```

**To reproduce**
`cabal test toml-lite-test --test-options='--match "/Toml.Lite.RoundTrip/" --seed 1203458923'`

**Constraints**
We build toml-lite inside the bootstrap image of our config tool, pinned to Stackage LTS 22.43 (GHC 9.6.6). Please don't add any new build-depends to toml-lite.cabal — `base`, `text`, `containers` and `megaparsec` are all we can have. Also the parser must stay strict about TOML 1.0: raw control characters inside basic strings are an error.

**Comments**
> **@ksato commented:**
> I suspect `Toml.Lite.Render` rather than the parser. TOML requires control characters (U+0000 to U+001F and U+007F) to be written as \uXXXX with exactly four uppercase hex digits, and we build the escape with `showHex` without padding. Also check every place that renders a string, not just values — keys can be quoted strings too.
"""

INSTR = """

INSTRUCTIONS:
Now, you're going to solve this issue on your own. Your terminal session has started and you're in the repository's root directory. You can use any bash commands or the special interface to help you. Edit all the files you need to and run any checks or tests that you want. 
Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME. You should always wait for feedback after every command. 
When you're satisfied with all of the changes you've made, you can submit your changes to the code base by simply running the submit command.
Note however that you cannot use any interactive session commands (e.g. ghci, vim) in this environment, but you can write scripts and run them. E.g. you can write a Haskell script and then run it with `cabal exec runghc <script_name>.hs`.

NOTE ABOUT THE EDIT COMMAND: Indentation really matters! When editing a file, make sure to insert appropriate indentation before each line! 

IMPORTANT TIPS:
1. Always start by trying to replicate the bug that the issues discusses. 
   If the issue includes code for reproducing the bug, we recommend that you re-implement that in your environment, and run it to make sure you can reproduce the bug.
   Then start trying to fix it.
   When you think you've fixed the bug, re-run the bug reproduction script to make sure that the bug has indeed been fixed.

2. If you run a command and it doesn't work, try running a different command. A command that did not work once will not work the second time unless you modify it!

3. If you open a file and need to get to an area around a specific line that is not in the first 100 lines, say line 583, don't just use the scroll_down command multiple times. Instead, use the goto 583 command. It's much quicker. 

4. Always make sure to look at the currently open file and the current working directory (which appears right after the currently open file). The currently open file might be in a different directory than the working directory! Note that some commands, such as 'create', open files, so they might change the current  open file.

5. When editing files, it is easy to accidentally specify a wrong line number or to write code with incorrect indentation. Always check the code after you issue an edit to make sure that it reflects what you wanted to accomplish. If it didn't, issue another command to fix it.
   

(Open file: n/a)
(Current directory: /toml-lite)
bash-$"""

# ------------------------------------------------------------------ source files
RENDER_LINES = r'''{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Toml.Lite.Render
-- Description : Pretty-print a 'Table' back to TOML text.
--
-- The renderer is the inverse of "Toml.Lite.Parser" for every value the
-- parser can produce; see @prop_renderParseRoundTrip@ in the test-suite.
module Toml.Lite.Render
  ( render
  , renderValue
  , renderKey
  , renderString
  ) where

import           Data.Char        (isAsciiLower, isAsciiUpper, isDigit, ord)
import           Data.List        (intersperse)
import qualified Data.Map.Strict  as Map
import           Data.Text        (Text)
import qualified Data.Text        as T
import           Numeric          (showHex)

import           Toml.Lite.Types

-- | Render a whole document. Scalars first, then sub-tables, then arrays of tables.
render :: Table -> Text
render = T.unlines . renderTable []

renderTable :: [Text] -> Table -> [Text]
renderTable path tbl =
  header <> scalars <> concatMap sub tables <> concatMap arr arrays
  where
    (scalars0, rest) = Map.partition isScalar tbl
    header
      | null path = []
      | otherwise = ["[" <> dotted path <> "]"]
    scalars = [ renderKey k <> " = " <> renderValue v | (k, v) <- Map.toList scalars0 ]
    tables  = [ (k, t) | (k, VTable t) <- Map.toList rest ]
    arrays  = [ (k, ts) | (k, VTableArray ts) <- Map.toList rest ]
    sub (k, t) = "" : renderTable (path <> [k]) t
    arr (k, ts) = concatMap (\t -> "" : ("[[" <> dotted (path <> [k]) <> "]]") : drop 1 (renderTable (path <> [k]) t)) ts

dotted :: [Text] -> Text
dotted = T.intercalate "." . map renderKey

isScalar :: Value -> Bool
isScalar (VTable _)      = False
isScalar (VTableArray _) = False
isScalar _               = True

isBareKeyChar :: Char -> Bool
isBareKeyChar c = isAsciiLower c || isAsciiUpper c || isDigit c || c == '_' || c == '-'

-- | Keys are bare when possible, quoted otherwise.
renderKey :: Text -> Text
renderKey k = if not (T.null k) && T.all isBareKeyChar k then k else T.pack (show k)

renderValue :: Value -> Text
renderValue (VString s)   = renderString s
renderValue (VInt n)      = T.pack (show n)
renderValue (VFloat d)    = renderFloat d
renderValue (VBool True)  = "true"
renderValue (VBool False) = "false"
renderValue (VArray vs)   = "[" <> T.concat (intersperse ", " (map renderValue vs)) <> "]"
renderValue (VInline t)   = "{ " <> T.intercalate ", " [ renderKey k <> " = " <> renderValue v | (k, v) <- Map.toList t ] <> " }"
renderValue (VTable _)    = error "renderValue: table in value position"
renderValue (VTableArray _) = error "renderValue: array of tables in value position"

renderFloat :: Double -> Text
renderFloat d
  | isNaN d                  = "nan"
  | isInfinite d && d > 0    = "inf"
  | isInfinite d             = "-inf"
  | otherwise                = T.pack (show d)

-- | A TOML basic string, with every character that needs it escaped.
renderString :: Text -> Text
renderString s = "\"" <> T.concatMap escapeChar s <> "\""

escapeChar :: Char -> Text
escapeChar '"'  = "\\\""
escapeChar '\\' = "\\\\"
escapeChar '\b' = "\\b"
escapeChar '\t' = "\\t"
escapeChar '\n' = "\\n"
escapeChar '\f' = "\\f"
escapeChar '\r' = "\\r"
escapeChar c
  | c < '\x20' || c == '\x7f' = "\\u" <> T.pack (showHex (ord c) "")
  | otherwise                 = T.singleton c
'''.split("\n")

PARSER_TOP = r'''{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Toml.Lite.Parser
-- Description : A small TOML 1.0 subset parser built on megaparsec.
module Toml.Lite.Parser
  ( parseToml
  , ParseError (..)
  , Parser
  ) where

import           Control.Monad              (void, when)
import           Data.Char                  (chr, isHexDigit, digitToInt)
import           Data.Foldable              (foldl')
import qualified Data.Map.Strict            as Map
import           Data.Text                  (Text)
import qualified Data.Text                  as T
import           Data.Void                  (Void)
import           Text.Megaparsec
import           Text.Megaparsec.Char
import qualified Text.Megaparsec.Char.Lexer as L

import           Toml.Lite.Types

type Parser = Parsec Void Text

newtype ParseError = ParseError String
  deriving (Eq, Show)

parseToml :: Text -> Either ParseError Table
parseToml src = case runParser (sc *> document <* eof) "" src of
  Left e  -> Left (ParseError (errorBundlePretty e))
  Right t -> Right t

sc :: Parser ()
sc = L.space hspace1 (L.skipLineComment "#") empty

scn :: Parser ()
scn = L.space space1 (L.skipLineComment "#") empty

lexeme :: Parser a -> Parser a
lexeme = L.lexeme sc

symbol :: Text -> Parser Text
symbol = L.symbol sc

data Stmt
  = KeyVal [Text] Value
  | Header [Text]
  | ArrayHeader [Text]

document :: Parser Table
document = do
  scn
  stmts <- many (statement <* scn)
  either fail pure (assemble stmts)

statement :: Parser Stmt
statement = choice
  [ try (ArrayHeader <$> between (symbol "[[") (symbol "]]") keyPath)
  , Header <$> between (symbol "[") (symbol "]") keyPath
  , keyVal
  ]

keyVal :: Parser Stmt
keyVal = do
  k <- keyPath
  void (symbol "=")
  v <- value
  pure (KeyVal k v)

keyPath :: Parser [Text]
keyPath = key `sepBy1` symbol "."

key :: Parser Text
key = lexeme (bareKey <|> quotedKey) <?> "key"

bareKey :: Parser Text
bareKey = takeWhile1P (Just "bare key character") isBare
  where
    isBare c = c `elem` ("_-" :: String) || c `elem` ['a' .. 'z'] || c `elem` ['A' .. 'Z'] || c `elem` ['0' .. '9']

quotedKey :: Parser Text
quotedKey = basicString <|> literalString

value :: Parser Value
value = lexeme $ choice
  [ VString <$> (try multiBasicString <|> basicString)
  , VString <$> (try multiLiteralString <|> literalString)
  , VBool True <$ string "true"
  , VBool False <$ string "false"
  , try (VFloat <$> float)
  , VInt <$> integer
  , VArray <$> array
  , VInline <$> inlineTable
  ] <?> "value"
'''

PARSER_STRINGS = r"""
-- | A TOML basic string: "..." with escapes. Raw control characters are
-- rejected, as required by TOML 1.0 (only tab is allowed unescaped).
basicString :: Parser Text
basicString = do
  void (char '"')
  chunks <- manyTill (escaped <|> plain) (char '"')
  pure (T.concat chunks)
  where
    plain = takeWhile1P (Just "string character") allowed
    allowed c = c /= '"' && c /= '\\' && (c == '\t' || (c >= '\x20' && c /= '\x7f'))

escaped :: Parser Text
escaped = char '\\' *> (T.singleton <$> escapeSeq) <?> "escape sequence"

escapeSeq :: Parser Char
escapeSeq = choice
  [ '"'  <$ char '"'
  , '\\' <$ char '\\'
  , '\b' <$ char 'b'
  , '\t' <$ char 't'
  , '\n' <$ char 'n'
  , '\f' <$ char 'f'
  , '\r' <$ char 'r'
  , char 'u' *> unicodeHex 4
  , char 'U' *> unicodeHex 8
  ]

unicodeHex :: Int -> Parser Char
unicodeHex n = do
  ds <- count n hexDigitChar
  let cp = foldl' (\acc d -> acc * 16 + digitToInt d) 0 ds
  when (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) $
    fail ("invalid unicode scalar value " <> show cp)
  pure (chr cp)

literalString :: Parser Text
literalString = between (char '\'') (char '\'') (takeWhileP (Just "literal character") (\c -> c /= '\'' && c /= '\n'))

multiBasicString :: Parser Text
multiBasicString = do
  void (string "\"\"\"")
  void (optional eol)
  T.concat <$> manyTill (escaped <|> (T.singleton <$> anySingle)) (string "\"\"\"")

multiLiteralString :: Parser Text
multiLiteralString = do
  void (string "'''")
  void (optional eol)
  T.pack <$> manyTill anySingle (string "'''")
"""

PARSER_REST = r'''
integer :: Parser Integer
integer = choice
  [ try (string "0x" *> L.hexadecimal)
  , try (string "0o" *> L.octal)
  , try (string "0b" *> L.binary)
  , L.signed (pure ()) decimalUnderscore
  ]

decimalUnderscore :: Parser Integer
decimalUnderscore = do
  ds <- digitChar `sepBy1` optional (char '_')
  pure (read ds)

float :: Parser Double
float = choice
  [ 1 / 0 <$ string "inf"
  , (-1) / 0 <$ string "-inf"
  , 0 / 0 <$ string "nan"
  , L.signed (pure ()) L.float
  ]

array :: Parser [Value]
array = between (symbol "[" <* scn) (char ']') (value `sepEndBy` (symbol "," <* scn) <* scn)

inlineTable :: Parser Table
inlineTable = do
  kvs <- between (symbol "{") (char '}') (keyVal `sepBy` symbol ",")
  either fail pure (assemble kvs)

-- | Turn a flat list of statements into a nested table, rejecting redefinitions.
assemble :: [Stmt] -> Either String Table
assemble = go [] Map.empty
  where
    go _ acc [] = Right acc
    go cur acc (Header p : rest) = go p (ensureTable p acc) rest
    go _ acc (ArrayHeader p : rest) = go p (appendTable p acc) rest
    go cur acc (KeyVal k v : rest) = case insertAt (cur <> k) v acc of
      Left e     -> Left e
      Right acc' -> go cur acc' rest

ensureTable :: [Text] -> Table -> Table
ensureTable [] t = t
ensureTable (k : ks) t = Map.alter (Just . VTable . ensureTable ks . asTable) k t
  where
    asTable (Just (VTable x)) = x
    asTable _                 = Map.empty

appendTable :: [Text] -> Table -> Table
appendTable [] t = t
appendTable [k] t = Map.alter (Just . VTableArray . (<> [Map.empty]) . asArr) k t
  where
    asArr (Just (VTableArray xs)) = xs
    asArr _                       = []
appendTable (k : ks) t = Map.alter (Just . VTable . appendTable ks . asTable) k t
  where
    asTable (Just (VTable x)) = x
    asTable _                 = Map.empty

insertAt :: [Text] -> Value -> Table -> Either String Table
insertAt [] _ _ = Left "empty key"
insertAt [k] v t
  | Map.member k t = Left ("duplicate key " <> show k)
  | otherwise = Right (Map.insert k v t)
insertAt (k : ks) v t = do
  inner <- case Map.lookup k t of
    Nothing         -> Right Map.empty
    Just (VTable x) -> Right x
    Just _          -> Left ("key " <> show k <> " is not a table")
  inner' <- insertAt ks v inner
  pure (Map.insert k (VTable inner') t)
'''
PARSER_LINES = (PARSER_TOP + PARSER_STRINGS + PARSER_REST).split("\n")

ROUNDTRIP_SPEC = r'''{-# LANGUAGE OverloadedStrings #-}
module Toml.Lite.RoundTripSpec (spec) where

import qualified Data.Map.Strict       as Map
import qualified Data.Text             as T
import           Test.Hspec
import           Test.Hspec.QuickCheck (modifyMaxSuccess)
import           Test.QuickCheck

import           Toml.Lite.Gen         (genTable)
import           Toml.Lite.Parser
import           Toml.Lite.Render
import           Toml.Lite.Types

-- | Rendering a table and parsing it back gives the same table.
prop_renderParseRoundTrip :: Property
prop_renderParseRoundTrip =
  forAllShrink genTable shrinkTable $ \t ->
    counterexample (T.unpack (render t)) $
      parseToml (render t) === Right t

shrinkTable :: Table -> [Table]
shrinkTable = map Map.fromList . shrinkList shrinkNothing . Map.toList

spec :: Spec
spec = describe "Toml.Lite.RoundTrip" $ do
  modifyMaxSuccess (const 500) $
    it "render then parse is identity" $ property prop_renderParseRoundTrip
  it "renders DEL as \\u007F" $
    renderString "\DEL" `shouldBe` "\"\\u007F\""
  it "renders NUL as \\u0000" $
    renderString "\NUL" `shouldBe` "\"\\u0000\""
'''.split("\n")

GEN_HS = r'''module Toml.Lite.Gen (genTable, genKey, genText) where

import qualified Data.Map.Strict as Map
import qualified Data.Text       as T
import           Test.QuickCheck

import           Toml.Lite.Types

-- | Any Unicode scalar value except surrogates, biased towards ASCII and control characters.
genChar :: Gen Char
genChar = frequency
  [ (6, choose ('a', 'z'))
  , (2, elements " _-.=#\"\\'")
  , (2, choose ('\x00', '\x1f'))
  , (1, pure '\x7f')
  , (1, arbitraryUnicodeChar `suchThat` (\c -> c < '\xD800' || c > '\xDFFF'))
  ]

genText :: Gen T.Text
genText = T.pack <$> listOf genChar

-- | Keys are arbitrary strings too: bare when possible, quoted otherwise.
genKey :: Gen T.Text
genKey = T.pack <$> listOf1 genChar

genScalar :: Gen Value
genScalar = oneof
  [ VString <$> genText
  , VInt <$> arbitrary
  , VBool <$> arbitrary
  ]

genTable :: Gen Table
genTable = Map.fromList <$> listOf ((,) <$> genKey <*> genScalar)
'''.split("\n")

CABAL = r'''cabal-version:      3.0
name:               toml-lite
version:            0.4.2.0
synopsis:           A small, dependency-light TOML 1.0 subset parser and renderer
license:            BSD-3-Clause
license-file:       LICENSE
author:             toml-lite contributors
maintainer:         maintainers@toml-lite.dev
category:           Text, Configuration
build-type:         Simple
extra-doc-files:    CHANGELOG.md README.md
tested-with:        GHC == 9.4.8 || == 9.6.6 || == 9.8.4

common warnings
    ghc-options: -Wall -Wcompat -Widentities -Wincomplete-uni-patterns -Wredundant-constraints

library
    import:           warnings
    exposed-modules:  Toml.Lite
                      Toml.Lite.Parser
                      Toml.Lite.Render
                      Toml.Lite.Types
    build-depends:    base       >= 4.17 && < 5
                    , containers >= 0.6  && < 0.8
                    , megaparsec >= 9.3  && < 9.7
                    , text       >= 2.0  && < 2.2
    hs-source-dirs:   src
    default-language: Haskell2010

test-suite toml-lite-test
    import:           warnings
    type:             exitcode-stdio-1.0
    hs-source-dirs:   test
    main-is:          Spec.hs
    other-modules:    Toml.Lite.Gen
                      Toml.Lite.ParserSpec
                      Toml.Lite.RenderSpec
                      Toml.Lite.RoundTripSpec
    build-tool-depends: hspec-discover:hspec-discover >= 2.10
    build-depends:    base
                    , containers
                    , hspec      >= 2.10 && < 2.12
                    , QuickCheck >= 2.14 && < 2.16
                    , text
                    , toml-lite
    default-language: Haskell2010
'''


# ------------------------------------------------------------------ helpers
def view(path, lines, start, total=None, window=100):
    total = total or len(lines)
    start = max(1, start)
    end = min(total, start + window - 1)
    out = ["[File: %s (%d lines total)]" % (path, total)]
    if start > 1:
        out.append("(%d more lines above)" % (start - 1))
    for i in range(start, end + 1):
        out.append("%d:%s" % (i, lines[i - 1]))
    if end < total:
        out.append("(%d more lines below)" % (total - end))
    return "\n".join(out)


TESTNAMES = []
def hspec_output(failures, seed=1203458923, dup=1):
    groups = {
        "Toml.Lite.Parser": ["bare keys", "quoted keys", "dotted keys", "basic strings", "literal strings", "multi-line strings", "integers", "floats",
                             "booleans", "arrays", "inline tables", "tables", "arrays of tables", "comments", "whitespace", "errors"],
        "Toml.Lite.Render": ["scalars", "strings", "keys", "nested tables", "arrays of tables", "floats"],
    }
    verbs = ["accepts", "rejects", "parses", "handles", "keeps", "renders", "normalises", "round-trips"]
    objs = ["an empty value", "unicode", "leading zeros", "a trailing comma", "nested arrays", "CRLF line endings", "tabs", "underscores",
            "hex literals", "octal literals", "binary literals", "exponents", "signs", "duplicate keys", "redefined tables", "mixed arrays",
            "\\u escapes", "\\U escapes", "escaped quotes", "empty strings", "long strings", "keys with dashes", "keys with digits", "comments after values"]
    out = []
    rnd = random.Random(5)
    for _ in range(dup):
        for g, subs in groups.items():
            out.append(g)
            for s in subs:
                out.append("  " + s)
                for _ in range(rnd.randint(5, 12)):
                    out.append("    %s %s [\u2714]" % (rnd.choice(verbs), rnd.choice(objs)))
                if g == "Toml.Lite.Parser" and s == "basic strings":
                    out.append("    rejects raw control characters in basic strings [%s]" % ("\u2718" if "parser" in failures else "\u2714"))
                    out.append("    accepts \\u escapes with uppercase hex [\u2714]")
        out.append("Toml.Lite.RoundTrip")
        rt_fail = "roundtrip" in failures
        out.append("  render then parse is identity [%s]" % ("\u2718" if rt_fail else "\u2714"))
        if not rt_fail:
            out.append("    +++ OK, passed 500 tests.")
        out.append("  renders DEL as \\u007F [%s]" % ("\u2718" if "del" in failures else "\u2714"))
        out.append("  renders NUL as \\u0000 [%s]" % ("\u2718" if "del" in failures else "\u2714"))
    return out


def hspec_full(failures_detail, nfail, total=None, dup=1, keys=None):
    out = hspec_output(keys or [], dup=dup)
    ntests = sum(1 for l in out if l.endswith("]"))
    out.append("")
    out.append("Failures:")
    out.append("")
    out.extend(failures_detail)
    out.append("")
    out.append("Randomized with seed 1203458923")
    out.append("")
    out.append("Finished in %.4f seconds" % (1.5 + random.Random(len(out)).random()))
    out.append("%d examples, %d failure%s" % (ntests, nfail, "" if nfail == 1 else "s"))
    out.append("Test suite toml-lite-test: FAIL")
    out.append("Test suite logged to:")
    out.append("/toml-lite/dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/t/toml-lite-test/test/toml-lite-0.4.2.0-toml-lite-test.log")
    out.append("0 of 1 test suites (0 of 1 test cases) passed.")
    out.append("Error: cabal: Tests failed for test:toml-lite-test from toml-lite-0.4.2.0.")
    return "\n".join(out)


RT_FAIL_1 = r'''  test/Toml/Lite/RoundTripSpec.hs:34:5: 
  1) Toml.Lite.RoundTrip render then parse is identity
       Falsified (after 37 tests and 4 shrinks):
         fromList [("a",VString "\DEL")]
         a = "\u7f"
         
         Left (ParseError "1:8:\n  |\n1 | a = \"\\u7f\"\n  |        ^\nunexpected '\"'\nexpecting hexadecimal digit\n")

  To rerun use: --match "/Toml.Lite.RoundTrip/render then parse is identity/" --seed 1203458923'''.split("\n")
DEL_FAIL = r'''  test/Toml/Lite/RoundTripSpec.hs:36:5: 
  2) Toml.Lite.RoundTrip renders DEL as \u007F
       expected: "\"\\u007F\""
        but got: "\"\\u7f\""

  To rerun use: --match "/Toml.Lite.RoundTrip/renders DEL as \\u007F/" --seed 1203458923

  test/Toml/Lite/RoundTripSpec.hs:38:5: 
  3) Toml.Lite.RoundTrip renders NUL as \u0000
       expected: "\"\\u0000\""
        but got: "\"\\u0\""

  To rerun use: --match "/Toml.Lite.RoundTrip/renders NUL as \\u0000/" --seed 1203458923'''.split("\n")
PARSER_FAIL = r'''  test/Toml/Lite/ParserSpec.hs:88:7: 
  1) Toml.Lite.Parser, basic strings, rejects raw control characters in basic strings
       expected: Left _
        but got: Right (fromList [("a",VString "x\DELy")])

  To rerun use: --match "/Toml.Lite.Parser/basic strings/rejects raw control characters in basic strings/" --seed 1203458923'''.split("\n")
RT_FAIL_KEY = r'''  test/Toml/Lite/RoundTripSpec.hs:34:5: 
  1) Toml.Lite.RoundTrip render then parse is identity
       Falsified (after 61 tests and 3 shrinks):
         fromList [("\DEL",VInt 0)]
         "\DEL" = 0
         
         Left (ParseError "1:2:\n  |\n1 | \"\\DEL\" = 0\n  |  ^\nunexpected 'D'\nexpecting escape sequence\n")

  To rerun use: --match "/Toml.Lite.RoundTrip/render then parse is identity/" --seed 1203458923'''.split("\n")


def cabal_build_log(n_extra=0):
    pkgs = ["OneTuple-0.4.2", "QuickCheck-2.14.3", "StateVar-1.2.2", "ansi-terminal-1.0.2", "ansi-terminal-types-0.11.5", "assoc-1.1.1",
            "base-orphans-0.9.2", "bifunctors-5.6.2", "call-stack-0.4.0", "case-insensitive-1.2.1.0", "colour-2.3.6", "comonad-5.0.9",
            "contravariant-1.5.5", "data-fix-0.3.4", "distributive-0.6.2.1", "hashable-1.4.7.0", "hspec-2.11.9", "hspec-core-2.11.9",
            "hspec-discover-2.11.9", "hspec-expectations-0.8.4", "indexed-traversable-0.1.4", "megaparsec-9.6.1", "parser-combinators-1.3.0",
            "primitive-0.9.0.0", "quickcheck-io-0.2.0", "random-1.2.1.2", "scientific-0.3.8.0", "semigroupoids-6.0.1", "setenv-0.1.1.3",
            "splitmix-0.1.0.5", "tagged-0.8.8", "tf-random-0.5", "th-abstraction-0.6.0.0", "these-1.2.1", "transformers-compat-0.7.2",
            "integer-logarithms-1.0.3.1", "haskell-lexer-1.1.1", "code-page-0.2.1", "clock-0.8.4"]
    out = ["Resolving dependencies...", "Build profile: -w ghc-9.6.6 -O1", "In order, the following will be built (use -v for more details):"]
    for p in pkgs:
        out.append(" - %s (lib) (requires build)" % p)
    out.append(" - toml-lite-0.4.2.0 (lib) (first run)")
    out.append(" - toml-lite-0.4.2.0 (test:toml-lite-test) (first run)")
    rb = random.Random(21)
    for p in pkgs:
        out.append("Starting     %s (lib)" % p)
        out.append("Building     %s (lib)" % p)
        nm = rb.randint(4, 22)
        base = p.rsplit("-", 1)[0]
        parts = [w.capitalize() for w in base.replace("-", " ").split()]
        for i in range(nm):
            out.append("[%2d of %2d] Compiling %s.%s" % (i + 1, nm, "".join(parts) if len(parts) < 3 else ".".join(parts[:2]), rb.choice(["Internal", "Types", "Class", "Instances", "Util", "Core", "Lazy", "Strict", "Unsafe", "Compat", "Prim", "Base", "Monad", "Combinators", "Pos", "Error", "Stream", "State", "Lexer", "Char", "Byte", "Debug", "Gen", "Arbitrary", "Property", "Test", "Text", "Format", "Config", "Runner"]) + ("%d" % i if rb.random() < 0.3 else "")))
        out.append("Installing   %s (lib)" % p)
        out.append("Completed    %s (lib)" % p)
    out.append("Configuring library for toml-lite-0.4.2.0...")
    out.append("Preprocessing library for toml-lite-0.4.2.0...")
    out.append("Building library for toml-lite-0.4.2.0...")
    mods = ["Toml.Lite.Types", "Toml.Lite.Parser", "Toml.Lite.Render", "Toml.Lite"]
    for i, m in enumerate(mods):
        out.append("[%d of %d] Compiling %s    ( src/%s.hs, dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/build/%s.o, dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/build/%s.dyn_o )" % (i + 1, len(mods), m, m.replace(".", "/"), m.replace(".", "/"), m.replace(".", "/")))
    out.append("src/Toml/Lite/Parser.hs:12:1: warning: [-Wunused-imports]")
    out.append("    The import of \u2018Data.Char\u2019 is redundant")
    out.append("      except perhaps to import instances from \u2018Data.Char\u2019")
    out.append("    To import instances alone, use: import Data.Char()")
    out.append("   |")
    out.append("12 | import           Data.Char                  (chr, isHexDigit, digitToInt)")
    out.append("   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    out.append("Configuring test suite 'toml-lite-test' for toml-lite-0.4.2.0...")
    out.append("Preprocessing test suite 'toml-lite-test' for toml-lite-0.4.2.0...")
    out.append("Building test suite 'toml-lite-test' for toml-lite-0.4.2.0...")
    tm = ["Toml.Lite.Gen", "Toml.Lite.ParserSpec", "Toml.Lite.RenderSpec", "Toml.Lite.RoundTripSpec", "Main"]
    for i, m in enumerate(tm):
        out.append("[%d of %d] Compiling %s" % (i + 1, len(tm) + 1, m))
    out.append("[%d of %d] Linking dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/t/toml-lite-test/build/toml-lite-test/toml-lite-test" % (len(tm) + 1, len(tm) + 1))
    return out


def freeze_file():
    deps = ["any.OneTuple ==0.4.2", "any.QuickCheck ==2.14.3", "QuickCheck -old-random +templatehaskell", "any.StateVar ==1.2.2",
            "any.ansi-terminal ==1.0.2", "ansi-terminal -example", "any.ansi-terminal-types ==0.11.5", "any.array ==0.5.6.0",
            "any.assoc ==1.1.1", "any.base ==4.18.2.1", "any.base-orphans ==0.9.2", "any.bifunctors ==5.6.2", "bifunctors +tagged",
            "any.binary ==0.8.9.1", "any.bytestring ==0.11.5.3", "any.call-stack ==0.4.0", "any.case-insensitive ==1.2.1.0",
            "any.clock ==0.8.4", "clock -llvm", "any.code-page ==0.2.1", "any.colour ==2.3.6", "any.comonad ==5.0.9",
            "comonad +containers +distributive +indexed-traversable", "any.containers ==0.6.7", "any.contravariant ==1.5.5",
            "contravariant +semigroups +statevar +tagged", "any.deepseq ==1.4.8.1", "any.directory ==1.3.8.5", "any.distributive ==0.6.2.1",
            "distributive +semigroups +tagged", "any.exceptions ==0.10.7", "any.filepath ==1.4.300.1", "any.ghc-bignum ==1.3",
            "any.ghc-boot-th ==9.6.6", "any.ghc-prim ==0.10.0", "any.hashable ==1.4.7.0", "hashable -arch-native +integer-gmp -random-initial-seed",
            "any.hspec ==2.11.9", "any.hspec-core ==2.11.9", "any.hspec-discover ==2.11.9", "any.hspec-expectations ==0.8.4",
            "any.indexed-traversable ==0.1.4", "any.integer-logarithms ==1.0.3.1", "integer-logarithms -check-bounds +integer-gmp",
            "any.megaparsec ==9.6.1", "megaparsec -dev", "any.mtl ==2.3.1", "any.parsec ==3.1.16.1", "any.parser-combinators ==1.3.0",
            "parser-combinators -dev", "any.pretty ==1.1.3.6", "any.primitive ==0.9.0.0", "any.process ==1.6.19.0", "any.quickcheck-io ==0.2.0",
            "any.random ==1.2.1.2", "any.rts ==1.0.2", "any.scientific ==0.3.8.0", "scientific -integer-simple", "any.semigroupoids ==6.0.1",
            "semigroupoids +comonad +containers +contravariant +distributive +tagged +unordered-containers", "any.setenv ==0.1.1.3",
            "any.splitmix ==0.1.0.5", "splitmix -optimised-mixer", "any.stm ==2.5.1.0", "any.tagged ==0.8.8", "tagged +deepseq +transformers",
            "any.template-haskell ==2.20.0.0", "any.text ==2.0.2", "any.tf-random ==0.5", "any.th-abstraction ==0.6.0.0", "any.these ==1.2.1",
            "any.time ==1.12.2", "any.transformers ==0.6.1.0", "any.transformers-compat ==0.7.2", "transformers-compat -five +five-three -four +generic-deriving +mtl -three -two",
            "any.unix ==2.8.4.0", "any.unordered-containers ==0.2.20", "unordered-containers -debug"]
    return "active-repositories: hackage.haskell.org:merge\nconstraints: " + (",\n             ".join(deps)) + "\nindex-state: hackage.haskell.org 2026-11-01T00:00:00Z"


def search_hits():
    out = []
    files = ["src/Toml/Lite/Parser.hs", "src/Toml/Lite/Render.hs", "src/Toml/Lite/Types.hs", "src/Toml/Lite.hs", "test/Toml/Lite/ParserSpec.hs",
             "test/Toml/Lite/RenderSpec.hs", "test/Toml/Lite/RoundTripSpec.hs", "test/Toml/Lite/Gen.hs", "bench/Main.hs", "examples/Dump.hs",
             "test/golden/Golden.hs", "test/toml-test/Runner.hs"]
    counts = {}
    rnd = random.Random(3)
    for f in files:
        counts[f] = rnd.randint(3, 40)
    total = sum(counts.values())
    out.append('Found %d matches for "T." in /toml-lite:' % total)
    for f in files:
        out.append("/toml-lite/%s (%d matches)" % (f, counts[f]))
    out.append('End of matches for "T." in /toml-lite')
    return "\n".join(out)


def grep_hits():
    rnd = random.Random(11)
    out = []
    files = ["test/Toml/Lite/ParserSpec.hs", "test/Toml/Lite/RenderSpec.hs", "test/golden/Golden.hs", "test/toml-test/Runner.hs", "bench/Main.hs",
             "test/toml-test/valid/string/escapes.toml", "test/toml-test/valid/string/unicode-escape.toml", "test/toml-test/invalid/string/bad-escape.toml",
             "test/toml-test/valid/key/quoted-unicode.toml", "test/toml-test/valid/key/escapes.toml", "test/toml-test/invalid/control/rawmulti-del.toml",
             "test/toml-test/invalid/control/bare-null.toml", "test/toml-test/invalid/control/comment-del.toml", "test/toml-test/valid/string/multiline-escape.toml"]
    for _ in range(340):
        f = rnd.choice(files)
        cp = rnd.choice(["0000", "0001", "001F", "007F", "00E9", "03B4", "2028", "1F600", "0008", "000C", "001b", "007f"])
        line = rnd.choice(['%s = "\\u%s"' % (rnd.choice(["a", "b", "key", "esc", "ctrl", "str"]), cp),
                           '    it "parses \\\\u%s" $ parseToml "a = \\"\\\\u%s\\"" `shouldBe` Right (one "a" (VString "\\x%s"))' % (cp, cp, cp.lower()),
                           '"\\u%s" = 1' % cp, '  renderString "\\x%s" `shouldBe` "\\"\\\\u%s\\""' % (cp.lower(), cp.upper().zfill(4))])
        out.append("%s:%d:%s" % (f, rnd.randint(1, 200), line))
    return "\n".join(out)


# ------------------------------------------------------------------ story
steps = []
state = {"open": "n/a"}


def step(thought, action, observation, open_file=None):
    if open_file is not None:
        state["open"] = open_file
    steps.append({"thought": thought, "action": action, "observation": observation, "open": state["open"]})


R = ROOT + "/src/Toml/Lite/Render.hs"
P = ROOT + "/src/Toml/Lite/Parser.hs"

step("Let me start by looking at the layout of the repository.", "ls -F\n",
     "CHANGELOG.md\nLICENSE\nREADME.md\nbench/\ncabal.project\nexamples/\nsrc/\ntest/\ntoml-lite.cabal")
step("Let me check the cabal file to see the modules, the test-suite and the current dependencies. The issue says no new build-depends may be added.", "cat toml-lite.cabal\n", CABAL)
step("Let me check the cabal.project for anything unusual (flags, allow-newer, index-state).", "cat cabal.project\n",
     "packages: .\n\ntests: True\n\n-- pinned to match Stackage LTS 22.43\nwith-compiler: ghc-9.6.6\nindex-state: hackage.haskell.org 2026-11-01T00:00:00Z\n\npackage toml-lite\n  ghc-options: -Werror=incomplete-patterns")
step("Let me check the toolchain versions.", "ghc --version && cabal --version\n", "The Glorious Glasgow Haskell Compilation System, version 9.6.6\ncabal-install version 3.12.1.0\ncompiled using version 3.12.1.0 of the Cabal library ")
step("Let me look at the recent history of the repository.", "git log --oneline -8\n", "e4a7c21 (HEAD -> main) Render: quote keys that are not bare\n91f03bd Gen: generate control characters and arbitrary keys (#208)\n6d2e8aa Parser: reject raw control characters in basic strings (TOML 1.0)\n0bc4417 CI: add GHC 9.8.4\n5f1e9c2 Render: escape control characters\nc03a7d8 Parser: support \\U escapes\n2a9b1e6 Bump megaparsec upper bound to 9.7\n7d44e01 Release 0.4.1.0")
step("Let me see the test directory layout.", "ls -R test | head -n 40\n", "test:\nSpec.hs\nToml\ngolden\ntoml-test\n\ntest/Toml:\nLite\n\ntest/Toml/Lite:\nGen.hs\nParserSpec.hs\nRenderSpec.hs\nRoundTripSpec.hs\n\ntest/golden:\nGolden.hs\nexpected\ninput\n\ntest/toml-test:\nRunner.hs\ninvalid\nvalid")
step("", "cat test/Spec.hs\n", "{-# OPTIONS_GHC -F -pgmF hspec-discover #-}")
steps[-1]["thought"] = "Let me check how the spec is discovered."
step("Now let me build the library and the test-suite. This will take a while the first time because of the dependencies.", "cabal build all --enable-tests 2>&1\n", "\n".join(cabal_build_log()))
step("The build succeeds. Let's run the whole test-suite to see what fails.", "cabal test toml-lite-test 2>&1\n",
     hspec_full(RT_FAIL_1 + [""] + DEL_FAIL, 3, keys=["roundtrip", "del"]))
step("Three failures: the round-trip property plus two unit tests that check the rendering of DEL and NUL. Let me reproduce the property failure exactly with the seed from the issue.",
     "cabal test toml-lite-test --test-options='--match \"/Toml.Lite.RoundTrip/\" --seed 1203458923' 2>&1\n",
     "Toml.Lite.RoundTrip\n  render then parse is identity [\u2718]\n  renders DEL as \\u007F [\u2718]\n  renders NUL as \\u0000 [\u2718]\n\nFailures:\n\n" + "\n".join(RT_FAIL_1 + [""] + DEL_FAIL) + "\n\nRandomized with seed 1203458923\n\nFinished in 0.0412 seconds\n3 examples, 3 failures\nTest suite toml-lite-test: FAIL\nError: cabal: Tests failed for test:toml-lite-test from toml-lite-0.4.2.0.")
step("I can reproduce it. The parser reports `unexpected '\"'` while parsing `a = \"\\u7f\"`. Let me look at the round-trip spec first.", "open test/Toml/Lite/RoundTripSpec.hs\n",
     view(ROOT + "/test/Toml/Lite/RoundTripSpec.hs", ROUNDTRIP_SPEC, 1), ROOT + "/test/Toml/Lite/RoundTripSpec.hs")
step("The property generates tables with `genTable`. Let me look at the generator.", "open test/Toml/Lite/Gen.hs\n", view(ROOT + "/test/Toml/Lite/Gen.hs", GEN_HS, 1), ROOT + "/test/Toml/Lite/Gen.hs")
step("The generator deliberately produces control characters, including DEL (`'\\x7f'`), and keys are arbitrary strings as well. The failing parse is at column 8 of `a = \"\\u7f\"`. Let me look at how the parser handles strings.",
     "open src/Toml/Lite/Parser.hs\n", view(P, PARSER_LINES, 1), P)
step("Let me scroll down to the string parsers.", "scroll_down\n", view(P, PARSER_LINES, 101), P)
bs_line = PARSER_LINES.index("basicString :: Parser Text") + 1
step("Let me look at the basic string parser more closely.", "search_file \"allowed c\"\n",
     'Found 2 matches for "allowed c" in %s:\nLine %d:    plain = takeWhile1P (Just "string character") allowed\nLine %d:    allowed c = c /= \'"\' && c /= \'\\\\\' && (c == \'\\t\' || (c >= \'\\x20\' && c /= \'\\x7f\'))\nEnd of matches for "allowed c" in %s' % (P, bs_line + 6, bs_line + 7, P))
step("The parser rejects raw DEL and other control characters in basic strings and only accepts escapes. Since the renderer is supposed to produce something the parser accepts, one way to make the round trip work is to make the parser more lenient and accept raw control characters. Let me try that: allow every character except `\"` and `\\`.",
     "edit %d:%d\n    allowed c = c /= '\"' && c /= '\\\\'\nend_of_edit\n" % (bs_line + 7, bs_line + 7),
     view(P, PARSER_LINES[:bs_line + 6] + ["    allowed c = c /= '\"' && c /= '\\\\'"] + PARSER_LINES[bs_line + 7:], bs_line - 10, window=30)
     + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", P)
step("That alone won't fix `\\u7f`, which is an escape with only two hex digits. Let me run the tests anyway to see what changes.",
     "cabal test toml-lite-test 2>&1\n", hspec_full(RT_FAIL_1 + [""] + DEL_FAIL + [""] + PARSER_FAIL, 4, keys=["roundtrip", "del", "parser"]))
step("Making the parser lenient breaks `rejects raw control characters in basic strings` (test/Toml/Lite/ParserSpec.hs:88:7), and the issue explicitly says the parser must stay strict about TOML 1.0. It also doesn't help, since the renderer emits an escape, not a raw character. I'll revert this change to the parser.",
     "edit %d:%d\n    allowed c = c /= '\"' && c /= '\\\\' && (c == '\\t' || (c >= '\\x20' && c /= '\\x7f'))\nend_of_edit\n" % (bs_line + 7, bs_line + 7),
     view(P, PARSER_LINES, bs_line - 10, window=30) + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", P)
step("Let me confirm the parser is back to its original state.", "git diff --stat\n", "")
step("The parser is untouched again. Let me look at the ParserSpec test that broke, to understand what it guarantees.", "open test/Toml/Lite/ParserSpec.hs 80\n",
     "[File: /toml-lite/test/Toml/Lite/ParserSpec.hs (214 lines total)]\n(79 more lines above)\n80:  describe \"basic strings\" $ do\n81:    it \"parses an empty string\" $\n82:      parseToml \"a = \\\"\\\"\" `shouldBe` Right (one \"a\" (VString \"\"))\n83:    it \"parses escapes\" $\n84:      parseToml \"a = \\\"\\\\t\\\\n\\\\\\\"\\\"\" `shouldBe` Right (one \"a\" (VString \"\\t\\n\\\"\"))\n85:    it \"accepts \\\\u escapes with uppercase hex\" $\n86:      parseToml \"a = \\\"\\\\u007F\\\"\" `shouldBe` Right (one \"a\" (VString \"\\DEL\"))\n87:    it \"rejects raw control characters in basic strings\" $\n88:      parseToml \"a = \\\"x\\DELy\\\"\" `shouldSatisfy` isLeft\n89:    it \"rejects short \\\\u escapes\" $\n90:      parseToml \"a = \\\"\\\\u7f\\\"\" `shouldSatisfy` isLeft\n91:    it \"rejects surrogate escapes\" $\n92:      parseToml \"a = \\\"\\\\uD800\\\"\" `shouldSatisfy` isLeft\n93:\n94:  describe \"literal strings\" $ do\n95:    it \"parses without escapes\" $\n96:      parseToml \"a = 'C:\\\\temp'\" `shouldBe` Right (one \"a\" (VString \"C:\\\\temp\"))\n(118 more lines below)",
     ROOT + "/test/Toml/Lite/ParserSpec.hs")
step("Let me check who last changed the escape code in the renderer and why.", "git log -L 88,88:src/Toml/Lite/Render.hs --oneline | head -n 30\n", "5f1e9c2 Render: escape control characters\ndiff --git a/src/Toml/Lite/Render.hs b/src/Toml/Lite/Render.hs\n--- a/src/Toml/Lite/Render.hs\n+++ b/src/Toml/Lite/Render.hs\n@@ -87,0 +88,1 @@\n+  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> T.pack (showHex (ord c) \"\")")
step("The parser spec says short `\\u` escapes like `\\u7f` must be rejected and `\\u007F` accepted. So the bug is on the rendering side, as the comment in the issue suggests. Let me find where strings are rendered.", "search_dir \"T.\" src\n", search_hits())
step("That's too broad. Let me look for `showHex` instead.", "grep -rn \"showHex\" src test\n",
     "src/Toml/Lite/Render.hs:20:import           Numeric          (showHex)\nsrc/Toml/Lite/Render.hs:88:  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> T.pack (showHex (ord c) \"\")")
step("Let me open the renderer.", "open src/Toml/Lite/Render.hs\n", view(R, RENDER_LINES, 1), R)
step("Let me see the end of the file with `escapeChar`.", "goto 80\n", view(R, RENDER_LINES, 40, window=100), R)
step("`escapeChar` uses `showHex (ord c) \"\"`, which gives `7f` for DEL and `0` for NUL. The parser requires exactly four hex digits (`count 4 hexDigitChar`), and the unit tests expect uppercase (`\\u007F`). Before editing, let me check which versions of the dependencies are actually used, to make sure whatever I use is in `base` or `text`.",
     "cabal freeze && cat cabal.project.freeze\n", freeze_file())
step("`text` is 2.0.2 so `T.justifyRight` and `T.toUpper` are available. I first want to try `Text.Printf.printf` from `base`, which can do `%04X` directly.",
     "edit 88:88\n  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> printf \"%04X\" (ord c)\nend_of_edit\n",
     view(R, RENDER_LINES[:87] + ["  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> printf \"%04X\" (ord c)"] + RENDER_LINES[88:], 80, window=20) + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", R)
step("I need to import `Text.Printf`.", "edit 20:20\nimport           Numeric          (showHex)\nimport           Text.Printf       (printf)\nend_of_edit\n",
     view(R, RENDER_LINES[:20] + ["import           Text.Printf       (printf)"] + RENDER_LINES[20:87] + ["  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> printf \"%04X\" (ord c)"] + RENDER_LINES[88:], 10, window=20) + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", R)
build_err = cabal_build_log()[-20:-12] + ["[3 of 4] Compiling Toml.Lite.Render ( src/Toml/Lite/Render.hs, dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/build/Toml/Lite/Render.o )", "",
    "src/Toml/Lite/Render.hs:89:33: error: [GHC-39999]",
    "    \u2022 Ambiguous type variable \u2018t0\u2019 arising from a use of \u2018printf\u2019",
    "      prevents the constraint \u2018(PrintfType Text)\u2019 from being solved.",
    "      No instance for (PrintfType Text) arising from a use of \u2018printf\u2019",
    "    \u2022 In the second argument of \u2018(<>)\u2019, namely \u2018printf \"%04X\" (ord c)\u2019",
    "      In the expression: \"\\\\u\" <> printf \"%04X\" (ord c)",
    "   |",
    "89 |   | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> printf \"%04X\" (ord c)",
    "   |                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    "Error: cabal: Failed to build toml-lite-0.4.2.0 (which is required by test:toml-lite-test from toml-lite-0.4.2.0)."]
step("Let me build.", "cabal build all --enable-tests 2>&1 | tail -n 60\n", "\n".join(build_err))
step("`printf` cannot return `Text`. Rather than wrapping it in `T.pack`, I'll use `text` functions directly and keep `showHex`: pad to four digits with `T.justifyRight` and uppercase with `T.toUpper`. Let me remove the printf import first.",
     "edit 20:21\nimport           Numeric          (showHex)\nend_of_edit\n", view(R, RENDER_LINES[:87] + ["  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> printf \"%04X\" (ord c)"] + RENDER_LINES[88:], 10, window=20) + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", R)
FIX_LINE = "  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> T.justifyRight 4 '0' (T.toUpper (T.pack (showHex (ord c) \"\")))"
RENDER_FIXED = RENDER_LINES[:87] + [FIX_LINE] + RENDER_LINES[88:]
step("Now replace the escape line.", "edit 88:88\n" + FIX_LINE + "\nend_of_edit\n",
     view(R, RENDER_FIXED, 80, window=20) + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", R)
step("Let me build again.", "cabal build all --enable-tests 2>&1 | tail -n 30\n",
     "Build profile: -w ghc-9.6.6 -O1\nIn order, the following will be built (use -v for more details):\n - toml-lite-0.4.2.0 (lib) (file src/Toml/Lite/Render.hs changed)\n - toml-lite-0.4.2.0 (test:toml-lite-test) (dependency rebuilt)\nPreprocessing library for toml-lite-0.4.2.0...\nBuilding library for toml-lite-0.4.2.0...\n[3 of 4] Compiling Toml.Lite.Render ( src/Toml/Lite/Render.hs, dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/build/Toml/Lite/Render.o, dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/build/Toml/Lite/Render.dyn_o )\n[4 of 4] Compiling Toml.Lite [Toml.Lite.Render changed]\nPreprocessing test suite 'toml-lite-test' for toml-lite-0.4.2.0...\nBuilding test suite 'toml-lite-test' for toml-lite-0.4.2.0...\n[4 of 5] Compiling Toml.Lite.RoundTripSpec [Toml.Lite.Render changed]\n[6 of 6] Linking dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/t/toml-lite-test/build/toml-lite-test/toml-lite-test [Objects changed]")
step("Let me make sure the package description is still fine (no new dependencies, nothing else changed in the cabal file).", "cabal check && git diff --stat\n", "No errors or warnings could be found in the package.\n src/Toml/Lite/Render.hs | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)")
step("It builds. Let me write a small script to check the rendering of a few control characters by hand.", "create check_escape.hs\n", "[File: /toml-lite/check_escape.hs (1 lines total)]\n1:", ROOT + "/check_escape.hs")
CHECK = ['{-# LANGUAGE OverloadedStrings #-}', 'import qualified Data.Text.IO as T', 'import Toml.Lite.Render (renderString)', 'import Toml.Lite.Parser (parseToml)', '',
         'main :: IO ()', 'main = do', '  mapM_ (T.putStrLn . renderString) ["\\DEL", "\\NUL", "a\\ESCb", "\\US"]', '  print (parseToml "a = \\"\\\\u007F\\"")', '  putStrLn "Script completed successfully, no errors."']
step("", "edit 1:1\n" + "\n".join(CHECK) + "\nend_of_edit\n", view(ROOT + "/check_escape.hs", CHECK, 1) + "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.")
steps[-1]["thought"] = "Let me fill in the script."
step("Let me run it.", "cabal exec runghc -- -isrc check_escape.hs\n", "\"\\u007F\"\n\"\\u0000\"\n\"a\\u001Bb\"\n\"\\u001F\"\nRight (fromList [(\"a\",VString \"\\DEL\")])\nScript completed successfully, no errors.")
step("The strings are rendered with four uppercase hex digits now and parse back. Let me remove the script and run the full test-suite.", "rm check_escape.hs\n", "", "n/a")
step("", "cabal test toml-lite-test 2>&1\n", hspec_full(RT_FAIL_KEY, 1, keys=["roundtrip"]))
steps[-1]["thought"] = "Now the full test-suite."
step("The DEL and NUL unit tests pass now, but the property still fails with a new counterexample: `fromList [(\"\\DEL\",VInt 0)]`. This time the control character is in a *key*, and it is rendered as `\"\\DEL\" = 0` — that's Haskell's `show` syntax, not TOML. Let me run the property a few more times with the same seed to be sure this is the only remaining case.",
     "cabal test toml-lite-test --test-options='--match \"/Toml.Lite.RoundTrip/render then parse is identity/\" --seed 1203458923' 2>&1\n",
     "Toml.Lite.RoundTrip\n  render then parse is identity [\u2718]\n\nFailures:\n\n" + "\n".join(RT_FAIL_KEY) + "\n\nRandomized with seed 1203458923\n\nFinished in 0.0391 seconds\n1 example, 1 failure\nTest suite toml-lite-test: FAIL\nError: cabal: Tests failed for test:toml-lite-test from toml-lite-0.4.2.0.")
for i in range(2):
    step("Let me run it again to check that it is stable.", "cabal test toml-lite-test --test-options='--match \"/Toml.Lite.RoundTrip/render then parse is identity/\" --seed 1203458923' 2>&1\n",
         "Toml.Lite.RoundTrip\n  render then parse is identity [\u2718]\n\nFailures:\n\n" + "\n".join(RT_FAIL_KEY) + "\n\nRandomized with seed 1203458923\n\nFinished in 0.0391 seconds\n1 example, 1 failure\nTest suite toml-lite-test: FAIL\nError: cabal: Tests failed for test:toml-lite-test from toml-lite-0.4.2.0.")
step("It fails deterministically with that seed. Let me look at the toml-test fixtures that mention escapes, to see what quoted keys with escapes should look like.", "grep -rn \"u00\\|u007\\|u001\" test | head -n 400\n", grep_hits())
step("Let me look at one of the toml-test fixtures for quoted keys with escapes.", "cat test/toml-test/valid/key/escapes.toml\n", "\"\\n\" = \"newline\"\n\"\\u00c0\" = \"latin capital letter A with grave\"\n\"\\\"\" = \"just a quote\"\n\"\\u007F\" = \"delete\"\n\n[\"backsp\\b\\b\"]\n\n[\"\\\"quoted\\\"\"]\nquote = true\n\n[\"a.b\".\"\\u00c0\"]")
step("Let me see which other modules call the key renderer.", "search_dir \"renderKey\"\n", 'Found 7 matches for "renderKey" in /toml-lite:\n/toml-lite/src/Toml/Lite.hs (1 matches)\n/toml-lite/src/Toml/Lite/Render.hs (5 matches)\n/toml-lite/test/Toml/Lite/RenderSpec.hs (4 matches)\n/toml-lite/examples/Dump.hs (1 matches)\nEnd of matches for "renderKey" in /toml-lite')
step("Let me check the top-level module re-exports.", "cat src/Toml/Lite.hs\n", "-- | Public API of toml-lite.\nmodule Toml.Lite\n  ( -- * Types\n    Table\n  , Value (..)\n    -- * Parsing\n  , parseToml\n  , ParseError (..)\n    -- * Rendering\n  , render\n  , renderValue\n  , renderKey\n  , renderString\n  ) where\n\nimport Toml.Lite.Parser\nimport Toml.Lite.Render\nimport Toml.Lite.Types")
step("And the example that uses renderKey.", "cat examples/Dump.hs\n", "module Main (main) where\n\nimport qualified Data.Map.Strict as Map\nimport qualified Data.Text.IO    as T\nimport           System.Environment (getArgs)\nimport           Toml.Lite\n\nmain :: IO ()\nmain = do\n  [path] <- getArgs\n  src <- T.readFile path\n  case parseToml src of\n    Left (ParseError e) -> putStrLn e\n    Right t -> mapM_ (\\k -> T.putStrLn (renderKey k)) (Map.keys t)")
step("Let me run only the Render spec to check it is green with the escape fix.", "cabal test toml-lite-test --test-options='--match \"/Toml.Lite.Render/\"' 2>&1 | tail -n 8\n", "    normalises signs [\u2714]\n    handles exponents [\u2714]\n\nFinished in 0.0068 seconds\n71 examples, 0 failures\nTest suite toml-lite-test: PASS\nTest suite logged to:\n/toml-lite/dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/t/toml-lite-test/test/toml-lite-0.4.2.0-toml-lite-test.log")
step("And the Parser spec, which must still be fully green since I did not change the parser.", "cabal test toml-lite-test --test-options='--match \"/Toml.Lite.Parser/\"' 2>&1 | tail -n 6\n", "\nFinished in 0.0213 seconds\n186 examples, 0 failures\nTest suite toml-lite-test: PASS\nTest suite logged to:\n/toml-lite/dist-newstyle/build/x86_64-linux/ghc-9.6.6/toml-lite-0.4.2.0/t/toml-lite-test/test/toml-lite-0.4.2.0-toml-lite-test.log")
step("Quoted keys follow the same rules as basic strings, so `renderKey` should use `renderString` for keys that are not bare. Let me look at `renderKey`.", "search_file \"renderKey k\" src/Toml/Lite/Render.hs\n",
     'Found 1 matches for "renderKey k" in /toml-lite/src/Toml/Lite/Render.hs:\nLine 55:renderKey k = if not (T.null k) && T.all isBareKeyChar k then k else T.pack (show k)\nEnd of matches for "renderKey k" in /toml-lite/src/Toml/Lite/Render.hs')
step("Let me view the area around line 55.", "goto 55\n", view(R, RENDER_FIXED, 5, window=100), R)
step("Line 55 falls back to `T.pack (show k)`. Haskell's `show` happens to produce valid TOML for plain ASCII, which is why this went unnoticed, but for control characters it writes `\\DEL`, `\\NUL`, `\\1234` etc. The fix is `else renderString k`. Let me check whether anything else relies on `renderKey` producing `show` output, e.g. the RenderSpec.",
     "grep -n \"renderKey\\|show k\" -r src test\n",
     "src/Toml/Lite/Render.hs:11:  , renderKey\nsrc/Toml/Lite/Render.hs:36:    scalars = [ renderKey k <> \" = \" <> renderValue v | (k, v) <- Map.toList scalars0 ]\nsrc/Toml/Lite/Render.hs:43:dotted = T.intercalate \".\" . map renderKey\nsrc/Toml/Lite/Render.hs:55:renderKey k = if not (T.null k) && T.all isBareKeyChar k then k else T.pack (show k)\nsrc/Toml/Lite/Render.hs:64:renderValue (VInline t)   = \"{ \" <> T.intercalate \", \" [ renderKey k <> \" = \" <> renderValue v | (k, v) <- Map.toList t ] <> \" }\"\ntest/Toml/Lite/RenderSpec.hs:42:    renderKey \"a b\" `shouldBe` \"\\\"a b\\\"\"\ntest/Toml/Lite/RenderSpec.hs:44:    renderKey \"caf\\233\" `shouldBe` \"\\\"caf\\\\233\\\"\"\ntest/Toml/Lite/RenderSpec.hs:46:    renderKey \"\" `shouldBe` \"\\\"\\\"\"")
step("`test/Toml/Lite/RenderSpec.hs:44` pins the old behaviour: it expects `renderKey \"caf\\233\"` to give `\"caf\\\\233\"` — a Haskell decimal escape, which is not valid TOML either (TOML has no decimal escapes). With `renderString` the key would render as `\"café\"`, which parses back. That test expectation is wrong and will need updating to `\"\\\"caf\\233\\\"\"` together with the fix. Let me open the RenderSpec to see the surrounding tests.",
     "open test/Toml/Lite/RenderSpec.hs 30\n",
     "[File: /toml-lite/test/Toml/Lite/RenderSpec.hs (88 lines total)]\n(29 more lines above)\n30:  describe \"strings\" $ do\n31:    it \"escapes quotes\" $\n32:      renderString \"a\\\"b\" `shouldBe` \"\\\"a\\\\\\\"b\\\"\"\n33:    it \"escapes backslashes\" $\n34:      renderString \"a\\\\b\" `shouldBe` \"\\\"a\\\\\\\\b\\\"\"\n35:    it \"keeps non-ASCII as is\" $\n36:      renderString \"\\233t\\233\" `shouldBe` \"\\\"\\233t\\233\\\"\"\n37:\n38:  describe \"keys\" $ do\n39:    it \"keeps bare keys bare\" $\n40:      renderKey \"server-1\" `shouldBe` \"server-1\"\n41:    it \"quotes keys with spaces\" $\n42:      renderKey \"a b\" `shouldBe` \"\\\"a b\\\"\"\n43:    it \"quotes non-ASCII keys\" $\n44:      renderKey \"caf\\233\" `shouldBe` \"\\\"caf\\\\233\\\"\"\n45:    it \"quotes the empty key\" $\n46:      renderKey \"\" `shouldBe` \"\\\"\\\"\"\n47:\n48:  describe \"nested tables\" $ do\n49:    it \"renders a dotted header\" $\n50:      render (one \"a\" (VTable (one \"b\" (VInt 1)))) `shouldBe` \"\\n[a]\\nb = 1\\n\"\n(38 more lines below)",
     ROOT + "/test/Toml/Lite/RenderSpec.hs")
step("Let me double-check how the parser reads quoted keys, so I know `renderString` output is accepted as a key.", "search_file \"quotedKey\" src/Toml/Lite/Parser.hs\n",
     'Found 2 matches for "quotedKey" in /toml-lite/src/Toml/Lite/Parser.hs:\nLine 75:key = lexeme (bareKey <|> quotedKey) <?> "key"\nLine 82:quotedKey :: Parser Text\nEnd of matches for "quotedKey" in /toml-lite/src/Toml/Lite/Parser.hs')
step("`quotedKey = basicString <|> literalString`, so any output of `renderString` is a valid quoted key. Let me view the full diff so far before changing `renderKey`.", "git diff\n",
     "diff --git a/src/Toml/Lite/Render.hs b/src/Toml/Lite/Render.hs\nindex 3b1e0a4..c82d9f1 100644\n--- a/src/Toml/Lite/Render.hs\n+++ b/src/Toml/Lite/Render.hs\n@@ -86,4 +86,4 @@ escapeChar '\\f' = \"\\\\f\"\n escapeChar '\\r' = \"\\\\r\"\n escapeChar c\n-  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> T.pack (showHex (ord c) \"\")\n+  | c < '\\x20' || c == '\\x7f' = \"\\\\u\" <> T.justifyRight 4 '0' (T.toUpper (T.pack (showHex (ord c) \"\")))\n   | otherwise                 = T.singleton c")

# padding: a few more realistic navigation steps to look at types and the example
TYPES = ['module Toml.Lite.Types', '  ( Table', '  , Value (..)', '  , one', '  ) where', '', 'import qualified Data.Map.Strict as Map', 'import           Data.Text       (Text)', '',
         'type Table = Map.Map Text Value', '', 'data Value', '  = VString Text', '  | VInt Integer', '  | VFloat Double', '  | VBool Bool', '  | VArray [Value]', '  | VInline Table',
         '  | VTable Table', '  | VTableArray [Table]', '  deriving (Eq, Show)', '', '-- | A table with a single key.', 'one :: Text -> Value -> Table', 'one = Map.singleton']
steps.insert(9, {"thought": "Let me also check the `Value` type used in the counterexample.", "action": "open src/Toml/Lite/Types.hs\n", "observation": view(ROOT + "/src/Toml/Lite/Types.hs", TYPES, 1), "open": ROOT + "/src/Toml/Lite/Types.hs"})
steps.insert(10, {"thought": "Let me look at how CI runs the tests, to see whether it uses a fixed seed.", "action": "cat .github/workflows/ci.yml\n",
                  "observation": "name: ci\non: [push, pull_request]\njobs:\n  build:\n    runs-on: ubuntu-24.04\n    strategy:\n      matrix:\n        ghc: ['9.4.8', '9.6.6', '9.8.4']\n    steps:\n      - uses: actions/checkout@v4\n      - uses: haskell-actions/setup@v2\n        with:\n          ghc-version: ${{ matrix.ghc }}\n          cabal-version: '3.12'\n      - run: cabal build all --enable-tests\n      - run: cabal test all --test-show-details=direct\n      - run: cabal check", "open": ROOT + "/src/Toml/Lite/Types.hs"})

# a few more scroll steps across the parser file for realism (long file read)
extra = []
for s0 in (1, 61, 121, 181):
    extra.append({"thought": "Let me re-read the parser from line %d to make sure the escape handling is what I think it is." % s0 if s0 == 1 else "Let me keep reading.",
                  "action": ("goto %d\n" % s0) if s0 > 1 else "open src/Toml/Lite/Parser.hs\n",
                  "observation": view(P, PARSER_LINES, s0), "open": P})
idx = next(i for i, s in enumerate(steps) if s["action"].startswith("search_file \"quotedKey\""))
steps[idx:idx] = extra

# second identical full run (flood) before the cost limit
steps.append({"thought": "Before changing `renderKey`, let me run the full suite once more to have a clean baseline of which tests fail with the escape fix alone.",
              "action": "cabal test toml-lite-test 2>&1\n", "observation": hspec_full(RT_FAIL_KEY, 1, keys=["roundtrip"]), "open": ROOT + "/test/Toml/Lite/RenderSpec.hs"})
steps.append({"thought": "Same single failure. Now I'll change line 55 of `src/Toml/Lite/Render.hs` so that non-bare keys go through `renderString`, and then update the expectation at `test/Toml/Lite/RenderSpec.hs:44`. Let me open the renderer at line 55.",
              "action": "open src/Toml/Lite/Render.hs 55\n", "observation": view(R, RENDER_FIXED, 5), "open": R})

# ------------------------------------------------------------------ assemble
history = [{"role": "system", "content": SYSTEM, "agent": "primary"},
           {"role": "user", "content": "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n" + ISSUE + INSTR, "agent": "primary"}]
trajectory = []
for s in steps:
    resp = s["thought"] + "\n\n```\n" + s["action"] + "```"
    obs = s["observation"]
    st = json.dumps({"open_file": s["open"], "working_dir": ROOT}) + "\n"
    trajectory.append({"action": s["action"], "observation": obs, "response": resp, "state": st, "thought": s["thought"] + "\n\n"})
    history.append({"role": "assistant", "content": resp, "thought": s["thought"] + "\n\n", "action": s["action"], "agent": "primary"})
    o = obs if obs.strip() else "Your command ran successfully and did not produce any output."
    history.append({"role": "user", "content": o + "\n(Open file: %s)\n(Current directory: %s)\nbash-$" % (s["open"], ROOT), "agent": "primary"})
history.append({"role": "user", "content": "Exited (autosubmitted)", "agent": "primary"})

submission = """
diff --git a/src/Toml/Lite/Render.hs b/src/Toml/Lite/Render.hs
index 3b1e0a4..c82d9f1 100644
--- a/src/Toml/Lite/Render.hs
+++ b/src/Toml/Lite/Render.hs
@@ -86,4 +86,4 @@ escapeChar '\\f' = "\\\\f"
 escapeChar '\\r' = "\\\\r"
 escapeChar c
-  | c < '\\x20' || c == '\\x7f' = "\\\\u" <> T.pack (showHex (ord c) "")
+  | c < '\\x20' || c == '\\x7f' = "\\\\u" <> T.justifyRight 4 '0' (T.toUpper (T.pack (showHex (ord c) "")))
   | otherwise                 = T.singleton c
"""
sent = sum(len(h["content"]) for h in history) // 4 * 3
doc = {"environment": "swe_main", "trajectory": trajectory, "history": history,
       "info": {"exit_status": "exit_cost", "submission": submission,
                "model_stats": {"total_cost": 3.0124, "instance_cost": 3.0124, "tokens_sent": 1873402, "tokens_received": 9127, "api_calls": len(steps)}}}
with open(os.path.join(OUT, NAME), "w") as f:
    json.dump(doc, f, indent=2)
print(NAME, len(steps), len(history))
