{-# LANGUAGE BangPatterns #-}
-- lazystream in Haskell (the peer of bench/lazystream.c; see there): the
-- same pipeline gen -> smap -> split -> zipp, lazy tails, and `fst p` /
-- `snd p`, which GHC compiles to selector thunks.
import Data.Bits
import System.Environment
import System.Exit
import System.IO

data S = Cons {-# UNPACK #-} !Int S

f :: Int -> Int
f x = (x * 2654435761) .&. 0x7fffffff

gen :: Int -> S
gen n = Cons n (gen (n + 1))

smap :: S -> S
smap (Cons x r) = Cons (f x) (smap r)

split :: S -> (S, S)
split (Cons x r) =
  let p = split r
  in if even x then (Cons x (fst p), snd p) else (fst p, Cons x (snd p))

zipp :: S -> S -> S
zipp (Cons a r) (Cons b s) = Cons (a + b) (zipp r s)

sumN :: Int -> S -> Int
sumN = go 0
  where go !acc 0 _ = acc
        go !acc k (Cons x r) = go (acc + x) (k - 1) r

expected :: Int -> Int
expected n = go 0 0 0 0
  where go !acc !k !ie !io
          | k == n = acc
          | otherwise = let e = next even ie; o = next odd io
                        in go (acc + f e + f o) (k + 1) (e + 1) (o + 1)
        next p i = if p (f i) then i else next p (i + 1)

main :: IO ()
main = do
  args <- getArgs
  let n = if null args then 10000 else read (head args) :: Int
      (evens, odds) = split (smap (gen 0))
      total = sumN n (zipp evens odds)
      want = expected n
  putStrLn $ "lazystream: n " ++ show n ++ " sum " ++ show total
  if total /= want
    then do hPutStrLn stderr ("lazystream: check failed: sum is " ++ show total ++ ", expected " ++ show want)
            exitWith (ExitFailure 1)
    else return ()
