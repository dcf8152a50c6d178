{-# LANGUAGE BangPatterns #-}
-- allocdrop in Haskell (the peer of bench/allocdrop.c; see there): a list
-- of LEN cells built, summed and dropped REPS times. `build` is NOINLINE
-- and -fno-full-laziness is on, so GHC neither fuses the list away nor
-- shares one list across repetitions.
import System.Environment
import System.Exit
import System.IO

data L = Nil | Cons {-# UNPACK #-} !Int !L

{-# NOINLINE build #-}
build :: Int -> L
build n = go n Nil
  where go 0 acc = acc
        go i acc = go (i - 1) (Cons i acc)

sumL :: L -> Int
sumL = go 0
  where go !s Nil = s
        go !s (Cons x t) = go (s + x) t

main :: IO ()
main = do
  args <- getArgs
  let arg i d = if length args > i then read (args !! i) else d
      len = arg 0 1000 :: Int
      reps = arg 1 1000 :: Int
      loop :: Int -> Int -> Int
      loop 0 !acc = acc
      loop r !acc = loop (r - 1) (acc + sumL (build len))
      total = loop reps 0
  putStrLn $ "allocdrop: len " ++ show len ++ " reps " ++ show reps ++ " sum " ++ show total
  let want = reps * (len * (len + 1) `div` 2)
  if total /= want
    then do hPutStrLn stderr ("allocdrop: check failed: sum is " ++ show total ++ ", expected " ++ show want)
            exitWith (ExitFailure 1)
    else return ()
