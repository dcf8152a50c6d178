{-
  Reads an hsrts event log with the ghc-events library (what ThreadScope
  and eventlog2html use) and checks it:

    * every event decodes (no UnknownEvent), the log is complete;
    * order: per capability the timestamps never decrease; every GC_START
      is preceded by REQUEST_SEQ_GC and followed by GC_STATS_GHC and
      GC_END before the next one; heap-profile samples are
      BEGIN/STRING.../END with increasing eras; every thread is created
      before it runs and alternates run/stop; the start-up events come
      first and the capability is deleted last;
    * with --stats FILE (the -s report of the same run): collections per
      generation, bytes copied, maximum residency, bytes allocated and the
      GC elapsed time agree with it; the heap size events never exceed
      "total memory in use";
    * with --hp FILE (the .hp file of the same run): every census in the
      event log is a sample of the .hp file with the same bands and bytes;
    * --user N, --markers N, --binary N: that many user events of each kind
      (N = -1: at least one); --foreign-calls N: that many threads stopped
      for a safe foreign call (rts_suspend);
    * --syncs N (-xn): the nonmoving phases (CONC_MARK, CONC_SYNC,
      CONC_SWEEP) pair up, N syncs, one mark and one sweep per collection
      of the oldest generation; --census / --no-census: the -ln census
      events come after each sweep, or not at all.

  Prints one line per check and "N passed, N failed"; exits 1 on a failure.
  Built by tests/integration/t_trace_ghc_events.sh with ghc.
-}
module Main (main) where

import Control.Monad (forM_, unless, when)
import Data.Char (isDigit, isSpace)
import Data.IORef
import Data.List (foldl', isInfixOf, isPrefixOf, sort)
import qualified Data.Map.Strict as M
import Data.Maybe (fromMaybe, mapMaybe)
import qualified Data.Text as T
import Data.Word (Word64)
import qualified Data.ByteString.Lazy as BL
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import System.Environment (getArgs)
import System.Exit (exitFailure)

data Opts = Opts
  { oLog :: FilePath,
    oStats :: Maybe FilePath,
    oHp :: Maybe FilePath,
    oUser :: Maybe Int,
    oMarkers :: Maybe Int,
    oBinary :: Maybe Int,
    oGc :: Bool, -- expect collections (--no-gc: expect none)
    oThreads :: Bool, -- expect thread events (--no-threads: expect none)
    oCut :: Bool, -- the run ended without a final collection (a fatal exit)
    oForeign :: Maybe Int, -- STOP_THREAD events with the status ForeignCall
    oFinished :: Maybe Int, -- STOP_THREAD events with the status ThreadFinished
    oParGcs :: Bool, -- parallel collections: GC_WORK/GC_DONE from a second capability, GC_STATS_GHC with threads > 1
    oSyncs :: Maybe Int, -- -xn: that many CONC_SYNC_BEGIN/END pairs (0 in the vanilla way)
    oCensus :: Maybe Bool -- -xn: NONMOVING_HEAP_CENSUS events expected (-ln) or not
  }

parseOpts :: [String] -> Opts -> Opts
parseOpts [] o = o
parseOpts ("--stats" : f : r) o = parseOpts r o {oStats = Just f}
parseOpts ("--hp" : f : r) o = parseOpts r o {oHp = Just f}
parseOpts ("--user" : n : r) o = parseOpts r o {oUser = Just (read n)}
parseOpts ("--markers" : n : r) o = parseOpts r o {oMarkers = Just (read n)}
parseOpts ("--binary" : n : r) o = parseOpts r o {oBinary = Just (read n)}
parseOpts ("--no-gc" : r) o = parseOpts r o {oGc = False}
parseOpts ("--no-threads" : r) o = parseOpts r o {oThreads = False}
parseOpts ("--cut" : r) o = parseOpts r o {oCut = True}
parseOpts ("--foreign-calls" : n : r) o = parseOpts r o {oForeign = Just (read n)}
parseOpts ("--finished" : n : r) o = parseOpts r o {oFinished = Just (read n)}
parseOpts ("--par-gcs" : r) o = parseOpts r o {oParGcs = True}
parseOpts ("--syncs" : n : r) o = parseOpts r o {oSyncs = Just (read n)}
parseOpts ("--census" : r) o = parseOpts r o {oCensus = Just True}
parseOpts ("--no-census" : r) o = parseOpts r o {oCensus = Just False}
parseOpts (f : r) o = parseOpts r o {oLog = f}

type Check = String -> Bool -> String -> IO ()

main :: IO ()
main = do
  args <- getArgs
  let opts = parseOpts args (Opts "" Nothing Nothing Nothing Nothing Nothing True True False Nothing Nothing False Nothing Nothing)
  passed <- newIORef (0 :: Int)
  failed <- newIORef (0 :: Int)
  let check :: Check
      check name ok detail =
        if ok
          then modifyIORef' passed (+ 1) >> putStrLn ("ok   " ++ name)
          else modifyIORef' failed (+ 1) >> putStrLn ("FAIL " ++ name ++ ": " ++ detail)
  bytes <- BL.readFile (oLog opts)
  case readEventLog bytes of
    Left err -> check "the header decodes" False err
    Right (EventLog _ (Data es), err) -> do
      check "every event decodes, to the end of the file" (err == Nothing) (show err)
      check "the log ends with the end-of-data marker" (endsWithDataEnd bytes) "no 0xFFFF at the end"
      checkLog check opts es
  p <- readIORef passed
  f <- readIORef failed
  putStrLn (show p ++ " passed, " ++ show f ++ " failed")
  when (f > 0) exitFailure

endsWithDataEnd :: BL.ByteString -> Bool
endsWithDataEnd b = BL.length b >= 2 && BL.drop (BL.length b - 2) b == BL.pack [0xff, 0xff]

conName :: EventInfo -> String
conName = takeWhile (not . isSpace) . show

checkLog :: Check -> Opts -> [Event] -> IO ()
checkLog check opts es = do
  let specs = map evSpec es
      -- 208 (NONMOVING_PRUNED_SEGMENTS, GHC 9.6) is newer than Debian 12's ghc-events 0.17,
      -- which knows no parser for it; its count is checked below instead.
      unknown = [ref s | s@UnknownEvent {} <- specs, ref s /= 208]
      counts = M.fromListWith (+) [(conName s, 1 :: Int) | s <- specs]
  putStrLn ("events: " ++ show (length es) ++ " " ++ show (M.toList counts))
  check "every event is decoded" (null unknown) ("unknown event types " ++ show unknown)

  -- Order: per capability (and the global buffer) times never go back.
  let byCap = M.fromListWith (flip (++)) [(evCap e, [e]) | e <- es]
      backwards =
        [ (c, evTime a, evTime b)
          | (c, s) <- M.toList byCap,
            (a, b) <- zip s (drop 1 s),
            evTime b < evTime a
        ]
  check "timestamps never decrease within a capability" (null backwards) (show (take 3 backwards))

  -- Collections: REQUEST, START, STATS, END, in that order, no nesting.
  let gcSeq = [s | s <- specs, conName s `elem` ["RequestSeqGC", "StartGC", "GCStatsGHC", "EndGC"]]
      gcOk = goGC gcSeq
      goGC (RequestSeqGC : StartGC : rest) = goStats rest
      goGC [] = True
      goGC _ = False
      goStats (GCStatsGHC {} : EndGC : rest) = goGC rest
      goStats (EndGC : rest) = goGC rest -- a collection cut short by a fatal exit
      goStats _ = False
      nGcs = length [() | StartGC <- specs]
  check "collections are REQUEST_SEQ_GC, GC_START, GC_STATS_GHC, GC_END" (gcOk && (nGcs > 0) == oGc opts)
    (show (length gcSeq) ++ " GC events: " ++ show (take 8 (map conName gcSeq)))

  -- Start-up: the process capset, capability and program facts come first.
  let isStart StartGC = True
      isStart _ = False
      firstGcTime = minimum (maxBound : [evTime e | e <- es, isStart (evSpec e)])
      startup = [evSpec e | e <- es, evTime e <= firstGcTime, not (isStart (evSpec e))]
      has p = any p startup
  check "start-up events come before the first collection"
    ( has (\s -> case s of CapsetCreate {} -> True; _ -> False)
        && has (\s -> case s of CapCreate {} -> True; _ -> False)
        && has (\s -> case s of RtsIdentifier {rtsident = i} -> T.pack "hsrts-" `T.isPrefixOf` i; _ -> False)
        && has (\s -> case s of ProgramArgs {} -> True; _ -> False)
        && has (\s -> case s of OsProcessPid {} -> True; _ -> False)
        && has (\s -> case s of WallClockTime {} -> True; _ -> False)
        && (has (\s -> case s of HeapInfoGHC {} -> True; _ -> False) || not (oGc opts))
    )
    (show (map conName startup))
  let lastCapDelete = [evTime e | e@Event {evSpec = CapDelete {}} <- es]
      lastGcEnd = [evTime e | e@Event {evSpec = EndGC} <- es]
  check "capabilities are deleted after the last collection"
    (not (null lastCapDelete) && (null lastGcEnd || maximum lastGcEnd <= maximum lastCapDelete))
    "CAP_DELETE missing or early"

  -- Threads: created before running; run and stop alternate.
  -- A thread that ends (hs_thread_done, or the one that shuts down) says so last, with
  -- STOP_THREAD status ThreadFinished, from the global buffer (it holds no capability).
  let threadEvs = [(thread s, threadKind s) | s <- specs, conName s `elem` ["CreateThread", "RunThread", "StopThread"]]
      threadKind StopThread {status = ThreadFinished} = "Finished"
      threadKind s = conName s
      perThread = M.fromListWith (flip (++)) [(t, [k]) | (t, k) <- threadEvs]
      threadOk ("CreateThread" : rest) = alt rest
      threadOk _ = False
      alt ("RunThread" : "StopThread" : rest) = alt rest
      alt ["RunThread"] = True -- still holding a capability at the end
      alt ["RunThread", "Finished"] = True
      alt ["Finished"] = True
      alt [] = True
      alt _ = False
  check "threads are created, then alternate RUN_THREAD / STOP_THREAD"
    (not (M.null perThread) == oThreads opts && all threadOk (M.elems perThread))
    (show (M.toList perThread))

  -- Heap profile samples.
  let prof = [s | s <- specs, conName s `elem` ["HeapProfBegin", "HeapProfSampleBegin", "HeapProfSampleString", "HeapProfSampleEnd"]]
      samples = profSamples prof
  when (any ((== "HeapProfBegin") . conName) prof) $ do
    check "heap samples are BEGIN, STRING..., END with increasing eras"
      (maybe False (const True) samples) (show (take 6 (map conName prof)))
    forM_ (oHp opts) $ \hpFile -> do
      hp <- readHp <$> readFile hpFile
      let evSamples = fromMaybe [] samples
          hpNonEmpty = filter (not . null) hp
      check "every event-log census is a .hp sample with the same bands"
        (not (null evSamples) && map sort evSamples == map sort hpNonEmpty)
        (show (length evSamples) ++ " event-log samples, " ++ show (length hpNonEmpty) ++ " non-empty .hp samples")

  -- User events.
  let expectCount name want got =
        forM_ want $ \n ->
          check (name ++ " events") (if n < 0 then got > 0 else got == n) (show got ++ ", want " ++ show n)
  expectCount "user message" (oUser opts) (length [() | UserMessage {} <- specs])
  expectCount "user marker" (oMarkers opts) (length [() | UserMarker {} <- specs])
  expectCount "user binary" (oBinary opts) (length [() | UserBinaryMessage {} <- specs])
  expectCount "STOP_THREAD (finished)" (oFinished opts)
    (length [() | StopThread {status = ThreadFinished} <- specs])
  expectCount "STOP_THREAD (foreign call)" (oForeign opts)
    (length [() | StopThread {status = ForeignCall} <- specs])

  -- Parallel collections: each GC thread's work is on its capability's buffer.
  when (oParGcs opts) $ do
    let workCaps = M.fromListWith (+) [(evCap e, 1 :: Int) | e <- es, conName (evSpec e) == "GCWork"]
        doneCaps = M.fromListWith (+) [(evCap e, 1 :: Int) | e <- es, conName (evSpec e) == "GCDone"]
        parStats = length [() | x@GCStatsGHC {} <- specs, parNThreads x > 1]
    check "GC_STATS_GHC records parallel collections" (parStats > 0) (show parStats)
    check "each GC thread's capability has a GC_DONE per parallel collection, after GC_WORK"
      (M.size doneCaps > 1 && M.keys workCaps == M.keys doneCaps && all (== parStats) (M.elems doneCaps)
         && and (M.elems (M.intersectionWith (>=) workCaps doneCaps)))
      (show (M.toList workCaps) ++ " vs " ++ show (M.toList doneCaps) ++ ", " ++ show parStats ++ " parallel")

  -- The nonmoving collector (-xn): its phases on the global buffer, paired, one mark per
  -- collection of the oldest generation; a census per class after each sweep with -ln.
  forM_ (oSyncs opts) $ \nSyncs -> do
    let conc = [s | e <- es, evCap e == Nothing, let s = evSpec e,
                    conName s `elem` ["ConcMarkBegin", "ConcMarkEnd", "ConcSyncBegin", "ConcSyncEnd",
                                      "ConcSweepBegin", "ConcSweepEnd", "NonmovingHeapCensus"]]
        paired b e xs = go (filter (`elem` [b, e]) (map conName xs))
          where
            go (x : y : r) = x == b && y == e && go r
            go [x] = x == b -- the run ended inside the phase
            go [] = True
        count n = length (filter ((== n) . conName) conc)
        oldest = maximum (0 : [gen x | x@GCStatsGHC {} <- specs])
        majors = length [() | x@GCStatsGHC {} <- specs, gen x == oldest]
        markedCounts = [concMarkedObjectCount x | x@ConcMarkEnd {} <- conc]
        -- every census comes in a sweep, just before its end
        censusOk (NonmovingHeapCensus {} : r@(NonmovingHeapCensus {} : _)) = censusOk r
        censusOk (NonmovingHeapCensus {} : ConcSweepEnd : r) = censusOk r
        censusOk (NonmovingHeapCensus {} : _) = False
        censusOk (_ : r) = censusOk r
        censusOk [] = True
    check "CONC_MARK_BEGIN / CONC_MARK_END pair up, one per collection of the oldest generation"
      (paired "ConcMarkBegin" "ConcMarkEnd" conc && count "ConcMarkEnd" == majors && majors > 0
         && all (> 0) markedCounts)
      (show (count "ConcMarkBegin") ++ " begin, " ++ show (count "ConcMarkEnd") ++ " end, "
         ++ show majors ++ " collections of generation " ++ show oldest ++ ", marked " ++ show (take 5 markedCounts))
    check "CONC_SYNC_BEGIN / CONC_SYNC_END pair up, one per final sync of the -s report"
      (paired "ConcSyncBegin" "ConcSyncEnd" conc && count "ConcSyncEnd" == nSyncs)
      (show (count "ConcSyncBegin") ++ " begin, " ++ show (count "ConcSyncEnd") ++ " end, expected " ++ show nSyncs)
    check "CONC_SWEEP_BEGIN / CONC_SWEEP_END pair up, one sweep per mark"
      (paired "ConcSweepBegin" "ConcSweepEnd" conc && count "ConcSweepBegin" == count "ConcMarkEnd")
      (show (count "ConcSweepBegin") ++ " begin, " ++ show (count "ConcSweepEnd") ++ " end")
    forM_ (oCensus opts) $ \want -> do
      -- ghc-events 0.17 reads the census with GHC 9.0's layout (a Word8 block-size logarithm,
      -- 13 bytes), not 9.8's (Word16, 14 bytes, what hsrts writes): only their count and
      -- place are checked here, the payload by check_trace's eventlog_layout.
      let nCensus = count "NonmovingHeapCensus"
          nPruned = length [() | UnknownEvent {ref = 208} <- specs]
      check (if want then "NONMOVING_HEAP_CENSUS after each sweep, just before its end (-ln)"
                     else "no NONMOVING_HEAP_CENSUS or PRUNED_SEGMENTS without -ln")
        (if want then nCensus >= count "ConcSweepEnd" && count "ConcSweepEnd" > 0 && censusOk conc
                 else nCensus == 0 && nPruned == 0)
        (show nCensus ++ " census events, " ++ show nPruned ++ " pruned, "
           ++ show (count "ConcSweepEnd") ++ " sweeps")

  -- Figures against -s.
  forM_ (oStats opts) $ \sf -> do
    s <- readFile sf
    let st = parseStats s
        gcStats = [(gen x, copied x) | x@GCStatsGHC {} <- specs]
        perGen = M.fromListWith (+) [(g, 1 :: Int) | (g, _) <- gcStats]
        copiedSum = sum (map snd gcStats)
        maxLive = maximum (0 : [liveBytes x | x@HeapLive {} <- specs])
        lastAlloc = maximum (0 : [allocBytes x | x@HeapAllocated {} <- specs]) -- buffers interleave
        maxSize = maximum (0 : [sizeBytes x | x@HeapSize {} <- specs])
        starts = [evTime e | e <- es, isStart (evSpec e)]
        ends = [evTime e | e <- es, case evSpec e of EndGC -> True; _ -> False]
        gcSecs = fromIntegral (sum (zipWith (-) ends starts)) / 1e9 :: Double
    putStrLn ("-s: " ++ show st)
    check "collections per generation agree with -s"
      (M.toList perGen == [(g, n) | (g, n) <- zip [0 ..] (sGens st), n > 0])
      (show (M.toList perGen) ++ " vs " ++ show (sGens st))
    check "bytes copied agree with -s" (copiedSum == sCopied st) (show copiedSum ++ " vs " ++ show (sCopied st))
    check "maximum residency agrees with -s" (maxLive == sMaxLive st) (show maxLive ++ " vs " ++ show (sMaxLive st))
    -- After a fatal exit -s also counts what was allocated since the last collection.
    check "bytes allocated agree with -s"
      (if oCut opts then lastAlloc <= sAlloc st else lastAlloc == sAlloc st)
      (show lastAlloc ++ " vs " ++ show (sAlloc st))
    check "heap size never exceeds the memory in use of -s"
      (maxSize > 0 && maxSize <= sMemMiB st * 1048576)
      (show maxSize ++ " vs " ++ show (sMemMiB st) ++ " MiB")
    check "GC elapsed time agrees with -s (to its rounding)"
      (abs (gcSecs - sGcElapsed st) <= 0.0015)
      (show gcSecs ++ " vs " ++ show (sGcElapsed st))

-- Samples as lists of (label, bytes), or Nothing if the structure is wrong.
profSamples :: [EventInfo] -> Maybe [[(String, Word64)]]
profSamples = go 0
  where
    go _ [] = Just []
    go lastEra (HeapProfBegin {} : rest) = go lastEra rest
    go lastEra (HeapProfSampleBegin {heapProfSampleEra = e} : rest)
      | e > lastEra = body e [] rest
    go _ _ = Nothing
    body e acc (HeapProfSampleString {heapProfLabel = l, heapProfResidency = b} : rest) =
      body e ((T.unpack l, b) : acc) rest
    body e acc (HeapProfSampleEnd {heapProfSampleEra = e'} : rest)
      | e == e' = (reverse acc :) <$> go e rest
    body _ _ _ = Nothing

readHp :: String -> [[(String, Word64)]]
readHp = go . lines
  where
    go [] = []
    go (l : ls)
      | "BEGIN_SAMPLE" `isPrefixOf` l =
          let (body, rest) = break ("END_SAMPLE" `isPrefixOf`) ls
           in map band body : go (drop 1 rest)
      | otherwise = go ls
    band l = let (a, b) = break (== '\t') l in (a, read (drop 1 b))

data Stats = Stats
  { sAlloc :: Word64,
    sCopied :: Word64,
    sMaxLive :: Word64,
    sMemMiB :: Word64,
    sGens :: [Int],
    sGcElapsed :: Double
  }
  deriving (Show)

parseStats :: String -> Stats
parseStats s = Stats
  { sAlloc = num "bytes allocated in the heap",
    sCopied = num "bytes copied during GC",
    sMaxLive = num "bytes maximum residency",
    sMemMiB = num "MiB total memory in use",
    sGens = mapMaybe genLine ls,
    sGcElapsed = gcElapsed
  }
  where
    ls = lines s
    num key = case [l | l <- ls, key `isInfixOf` l] of
      (l : _) -> read (filter isDigit (head (words l)))
      [] -> 0
    genLine l = case words l of
      ("Gen" : _ : n : "colls," : _) -> Just (read n)
      _ -> Nothing
    gcElapsed = case [l | l <- ls, "GC      time" `isInfixOf` l] of
      (l : _) -> read (takeWhile (/= 's') (dropWhile isSpace (drop 1 (dropWhile (/= '(') l))))
      [] -> -1
