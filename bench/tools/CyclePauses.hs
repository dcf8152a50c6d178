{-
  The pauses a nonmoving cycle adds, from an event log (-xn -l, threaded
  way), read with the ghc-events library:

      ghc -O -outputdir build/bench/tools -o build/bench/tools/cycle-pauses bench/tools/CyclePauses.hs
      build/bench/tools/cycle-pauses prog.eventlog [more.eventlog ...]

  A collection (GC_START to GC_END) that holds CONC_MARK_BEGIN is a start
  pause, one that holds CONC_SYNC_BEGIN a final pause (design notes 22);
  the others are minor collections. Every start and final pause is also a
  minor collection, so what the cycle adds to it is read against the minor
  collections around it: the pause minus the median of the 12 nearest
  minor ones. Prints, per kind, the count and the median and maximum of the
  pause and of that difference (ms), over all the logs given. A log's last
  collection is the exit's (hs_exit: the program has ended; it may finish
  the running cycle as its final pause); it is counted apart, on a line of
  its own, and not among the pauses above.
-}
module Main (main) where

import qualified Data.ByteString.Lazy as BL
import Data.List (sort, sortOn)
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import System.Environment (getArgs)
import Text.Printf (printf)

data Kind = Minor | Start | Final deriving (Eq, Show)

collections :: [Event] -> [(Kind, Double)]
collections = go Nothing . sortOn evTime
  where
    go _ [] = []
    go cur (e : r) = case (evSpec e, cur) of
      (StartGC, _) -> go (Just (evTime e, Minor)) r
      (ConcMarkBegin, Just (t, _)) -> go (Just (t, Start)) r
      (ConcSyncBegin, Just (t, _)) -> go (Just (t, Final)) r
      (EndGC, Just (t, k)) -> (k, fromIntegral (evTime e - t) / 1e6) : go Nothing r
      _ -> go cur r

median :: [Double] -> Double
median [] = 0
median xs = sort xs !! (length xs `div` 2)

added :: [(Kind, Double)] -> [(Int, Kind, Double, Double)]
added gcs =
  [ (i + 1, k, d, d - median near)
    | (i, (k, d)) <- ix,
      k /= Minor,
      let near = take 12 [d' | (_, j, d') <- sortOn (\(dist, _, _) -> dist) [(abs (j - i), j, d') | (j, (Minor, d')) <- ix]]
  ]
  where
    ix = zip [0 :: Int ..] gcs

main :: IO ()
main = do
  args <- getArgs
  let (each, files) = case args of
        ("--each" : fs) -> (True, fs)
        fs -> (False, fs)
  perFile <- mapM (\f -> do
    b <- BL.readFile f
    case readEventLog b of
      Left err -> error (f ++ ": " ++ err)
      Right (EventLog _ (Data es), _) -> pure (f, running (collections es))) files
  let rows = [(k, d, a) | (_, (rs, _)) <- perFile, (_, k, d, a) <- rs]
      exits = [x | (_, (_, Just x)) <- perFile]
  if each
    then mapM_ (\(f, (rs, x)) -> do
      mapM_ (\(n, k, d, a) ->
        printf "%s collection %d %s: pause %.2f ms, over %.2f ms\n" f n (show k) d a) rs
      mapM_ (\(k, d) -> printf "%s exit's collection (%s): pause %.2f ms\n" f (show k) d) x) perFile
    else pure ()
  mins <- concat <$> mapM (\f -> do
    b <- BL.readFile f
    case readEventLog b of
      Left err -> error (f ++ ": " ++ err)
      Right (EventLog _ (Data es), _) -> pure [d | (Minor, d) <- fst (splitExit (collections es))]) files
  printf "minor: %d, median %.2f ms, max %.2f ms\n" (length mins) (median mins) (maximum (0 : mins))
  mapM_ (\k -> do
    let ds = [d | (k', d, _) <- rows, k' == k]
        as = [a | (k', _, a) <- rows, k' == k]
    printf "%s: %d, pause median %.2f max %.2f ms; over the minor collections around it: median %.2f max %.2f ms\n"
      (show k) (length ds) (median ds) (maximum (0 : ds)) (median as) (maximum (-1e9 : as))) [Start, Final]
  printf "exit's collection: %d, pause median %.2f max %.2f ms (%d of them a final pause)\n"
    (length exits) (median (map snd exits)) (maximum (0 : map snd exits))
    (length [() | (Final, _) <- exits])

-- The collections while the program runs, and the exit's (the log's last).
splitExit :: [(Kind, Double)] -> ([(Kind, Double)], Maybe (Kind, Double))
splitExit [] = ([], Nothing)
splitExit gcs = (init gcs, Just (last gcs))

running :: [(Kind, Double)] -> ([(Int, Kind, Double, Double)], Maybe (Kind, Double))
running gcs = let (body, x) = splitExit gcs in (added body, x)
