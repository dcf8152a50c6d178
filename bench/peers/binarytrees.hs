-- binary-trees (the Computer Language Benchmarks Game), the peer of
-- bench/binarytrees.c. Build: ghc -O2 -fno-full-laziness -fno-cse -rtsopts
-- (without those flags GHC shares one tree across iterations).
import System.Environment
import Control.Concurrent
import Control.Monad
import Control.Exception (evaluate)
import Data.Bits
import System.Exit
import System.IO

data Tree = Nil | Node !Tree !Tree

minN :: Int
minN = 4

make :: Int -> Tree
make d = if d == 0 then Node Nil Nil else Node (make (d-1)) (make (d-1))

check :: Tree -> Int
check Nil = 0
check (Node l r) = 1 + check l + check r

main :: IO ()
main = do
  n <- getArgs >>= readIO . head
  let maxN = max (minN + 2) n
      stretchN = maxN + 1
  let c0 = check (make stretchN)
  putStrLn $ "stretch tree of depth " ++ show stretchN ++ "\t check: " ++ show c0
  verify "stretch tree nodes" c0 (nodes stretchN)
  -- Built before the loop, as the benchmark specifies (a lazy `let` would
  -- only build it at the end, so it would not be live during the loop).
  long <- evaluate (make maxN)
  caps <- getNumCapabilities
  forM_ [minN, minN+2 .. maxN] $ \d -> do
    let niter = (1 :: Int) `shiftL` (maxN - d + minN)
    -- With -N2 (a -threaded build) the trees of one depth are shared out
    -- between that many threads, as the C version does with capabilities.
    s <- if caps <= 1
           then evaluate (sum [check (make d) | _ <- [1..niter]] :: Int)
           else do
             vars <- forM [0 .. caps - 1] $ \t -> do
               v <- newEmptyMVar
               let k = niter `div` caps + (if t < niter `mod` caps then 1 else 0)
               _ <- forkIO (putMVar v $! sum [check (make d) | _ <- [1..k]])
               return v
             sum <$> mapM takeMVar vars
    putStrLn $ show niter ++ "\t trees of depth " ++ show d ++ "\t check: " ++ show s
    verify "nodes" s (niter * nodes d)
  let c1 = check long
  putStrLn $ "long lived tree of depth " ++ show maxN ++ "\t check: " ++ show c1
  verify "long-lived tree nodes" c1 (nodes maxN)

-- The self-check of every peer: a tree of depth d has 2^(d+1) - 1 nodes.
nodes :: Int -> Int
nodes d = (1 `shiftL` (d + 1)) - 1

verify :: String -> Int -> Int -> IO ()
verify what got want = when (got /= want) $ do
  hPutStrLn stderr ("binarytrees: check failed: " ++ what ++ " is " ++ show got ++ ", expected " ++ show want)
  exitWith (ExitFailure 1)
