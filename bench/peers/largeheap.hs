{-# LANGUAGE BangPatterns #-}
-- largeheap in Haskell (the peer of bench/largeheap.c; see there): a boxed
-- IOArray of slots holding 16-cell lists, churned; an IOUArray is the shadow.
import Control.Monad
import Data.Array.Base (unsafeRead, unsafeWrite)
import Data.Array.IO
import Data.Bits
import System.Environment
import System.Exit
import System.IO

data L = Nil | Cons {-# UNPACK #-} !Int !L

listLen, slotSize :: Int
listLen = 16
slotSize = listLen * 3 * 8 + 8

cellValue :: Int -> Int -> Int -> Int
cellValue t s k = (7 * t + 13 * s + k) .&. 0xfffff

build :: Int -> Int -> L
build t s = go (listLen - 1) Nil
  where go k !acc | k < 0 = acc
                  | otherwise = go (k - 1) (Cons (cellValue t s k) acc)

sumL :: L -> Int
sumL = go 0
  where go !a Nil = a
        go !a (Cons x r) = go (a + x) r

main :: IO ()
main = do
  args <- getArgs
  let arg i d = if length args > i then read (args !! i) else d
      mib = arg 0 1200 :: Int
      churn = arg 1 2 :: Int
      nslots = (mib `shiftL` 20) `div` slotSize
      steps = churn * nslots
  slots <- newArray (0, nslots - 1) Nil :: IO (IOArray Int L)
  shadow <- newArray (0, nslots - 1) 0 :: IO (IOUArray Int Int)
  forM_ [0 .. nslots - 1] $ \s -> unsafeWrite slots s $! build 0 s
  let loop :: Int -> IO ()
      loop !t
        | t > steps = return ()
        | otherwise = do
            let s = t `rem` nslots
            unsafeWrite slots s $! build t s
            unsafeWrite shadow s t
            loop (t + 1)
  loop 1
  let sums :: Int -> Int -> Int -> IO (Int, Int)
      sums !s !a !w
        | s == nslots = return (a, w)
        | otherwise = do
            l <- unsafeRead slots s
            t <- unsafeRead shadow s
            sums (s + 1) (a + sumL l) (w + sum [cellValue t s k | k <- [0 .. listLen - 1]])
  (total, want) <- sums 0 0 0
  putStrLn $ "largeheap: slots " ++ show nslots ++ " steps " ++ show steps ++ " sum " ++ show total
  when (total /= want) $ do
    hPutStrLn stderr ("largeheap: check failed: sum of the cells is " ++ show total ++ ", expected " ++ show want)
    exitWith (ExitFailure 1)
