{-# LANGUAGE BangPatterns #-}
-- mutarray in Haskell (the peer of bench/mutarray.c; see there): a boxed
-- IOArray (GHC's MUT_ARR_PTRS, with card marking) of N boxes receiving
-- WRITES writes of fresh boxes; an unboxed IOUArray is the shadow.
import Control.Monad
import Data.Array.Base (unsafeRead, unsafeWrite)
import Data.Array.IO
import Data.Bits
import System.Environment
import System.Exit
import System.IO

data Box = Box {-# UNPACK #-} !Int

main :: IO ()
main = do
  args <- getArgs
  let arg i d = if length args > i then read (args !! i) else d
      n = arg 0 1000 :: Int
      writes = arg 1 100000 :: Int
  arr <- newArray (0, n - 1) (Box 0) :: IO (IOArray Int Box)
  shadow <- newArray (0, n - 1) 0 :: IO (IOUArray Int Int)
  forM_ [0 .. n - 1] $ \i -> do
    unsafeWrite arr i (Box i)
    unsafeWrite shadow i i
  let loop :: Int -> Int -> IO ()
      loop !t !x
        | t == writes = return ()
        | otherwise = do
            let x' = (x * 1103515245 + 12345) .&. 0x7fffffff
                i = (x' `shiftR` 7) `rem` n
            unsafeWrite arr i (Box t)
            unsafeWrite shadow i t
            loop (t + 1) x'
  loop 0 42
  let sums :: Int -> Int -> Int -> IO (Int, Int)
      sums !i !s !w
        | i == n = return (s, w)
        | otherwise = do
            Box v <- unsafeRead arr i
            sv <- unsafeRead shadow i
            sums (i + 1) (s + v) (w + sv)
  (s, w) <- sums 0 0 0
  putStrLn $ "mutarray: n " ++ show n ++ " writes " ++ show writes ++ " sum " ++ show s
  when (s /= w) $ do
    hPutStrLn stderr ("mutarray: check failed: sum of the boxes is " ++ show s ++ ", expected " ++ show w)
    exitWith (ExitFailure 1)
