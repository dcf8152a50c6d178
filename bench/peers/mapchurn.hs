{-# LANGUAGE BangPatterns #-}
-- mapchurn in Haskell (the peer of bench/mapchurn.c; see there): the same
-- AVL tree with path copying, the same insert, delete, delete-min and
-- rotations (not Data.Map, whose weight-balanced algorithm differs).
import Data.Bits
import System.Environment
import System.Exit
import System.IO
import Control.Monad

data M = Tip
       | Node !M !M {-# UNPACK #-} !Int {-# UNPACK #-} !Int {-# UNPACK #-} !Int
         -- left right key value height

height :: M -> Int
height Tip = 0
height (Node _ _ _ _ h) = h

node :: M -> Int -> Int -> M -> M
node l k v r = Node l r k v (max (height l) (height r) + 1)

balance :: M -> Int -> Int -> M -> M
balance l k v r
  | hl > hr + 1 = case l of
      Node ll lr lk lv _
        | height ll >= height lr -> node ll lk lv (node lr k v r)
        | otherwise -> case lr of
            Node mll mlr mk mv _ -> node (node ll lk lv mll) mk mv (node mlr k v r)
            Tip -> error "balance"
      Tip -> error "balance"
  | hr > hl + 1 = case r of
      Node rl rr rk rv _
        | height rr >= height rl -> node (node l k v rl) rk rv rr
        | otherwise -> case rl of
            Node mrl mrr mk mv _ -> node (node l k v mrl) mk mv (node mrr rk rv rr)
            Tip -> error "balance"
      Tip -> error "balance"
  | otherwise = node l k v r
  where hl = height l
        hr = height r

insert :: Int -> Int -> M -> M
insert !k !v Tip = node Tip k v Tip
insert k v (Node l r tk tv _)
  | k < tk = balance (insert k v l) tk tv r
  | k > tk = balance l tk tv (insert k v r)
  | otherwise = balance l tk v r

data MinView = MinView {-# UNPACK #-} !Int {-# UNPACK #-} !Int !M

deleteMin :: M -> MinView
deleteMin (Node Tip r k v _) = MinView k v r
deleteMin (Node l r k v _) = case deleteMin l of
  MinView mk mv l' -> MinView mk mv (balance l' k v r)
deleteMin Tip = error "deleteMin"

delete :: Int -> M -> M
delete !_ Tip = Tip
delete k (Node l r tk tv _)
  | k < tk = balance (delete k l) tk tv r
  | k > tk = balance l tk tv (delete k r)
  | otherwise = case (l, r) of
      (Tip, _) -> r
      (_, Tip) -> l
      _ -> case deleteMin r of MinView mk mv r' -> balance l mk mv r'

member :: Int -> M -> Bool
member !_ Tip = False
member k (Node l r tk _ _)
  | k < tk = member k l
  | k > tk = member k r
  | otherwise = True

mkKey :: Int -> Int
mkKey j = (j * 2654435761) .&. 0x7fffffff

-- (height, size, keysum, valsum, faults), as bench/mapchurn.c's census.
data Census = Census !Int !Int !Int !Int

census :: M -> Int -> Int -> Census -> (Int, Census)
census Tip _ _ c = (0, c)
census (Node l r k v h) lo hi c0 =
  let (hl, c1) = census l lo k c0
      (hr, Census n ks vs bad) = census r k hi c1
      h' = max hl hr + 1
      bad' = if k <= lo || k >= hi || abs (hl - hr) > 1 || h' /= h then bad + 1 else bad
  in (h', Census (n + 1) (ks + k) (vs + v) bad')

main :: IO ()
main = do
  args <- getArgs
  let arg i d = if length args > i then read (args !! i) else d
      live = arg 0 1000 :: Int
      ops = arg 1 10000 :: Int
      build !j !m | j == live = m
                  | otherwise = build (j + 1) (insert (mkKey j) j m)
      churn :: Int -> Int -> M -> (Int, M)
      churn !j !found !m
        | j == ops = (found, m)
        | otherwise =
            let m' = delete (mkKey j) (insert (mkKey (live + j)) (live + j) m)
                f = if member (mkKey (j + live `div` 2)) m' then 1 else 0
            in m' `seq` churn (j + 1) (found + f) m'
      (found, final) = churn 0 0 (build 0 Tip)
      (_, Census size ks vs bad) = census final (-1) (1 `shiftL` 31) (Census 0 0 0 0)
      wantK = sum [mkKey j | j <- [ops .. ops + live - 1]]
      wantV = sum [ops .. ops + live - 1]
  putStrLn $ "mapchurn: live " ++ show live ++ " ops " ++ show ops ++ " size " ++ show size
    ++ " keysum " ++ show ks ++ " valsum " ++ show vs ++ " found " ++ show found
  let check what got want = when (got /= want) $ do
        hPutStrLn stderr ("mapchurn: check failed: " ++ what ++ " is " ++ show got ++ ", expected " ++ show want)
        exitWith (ExitFailure 1)
  check "order or balance faults" bad 0
  check "size" size live
  check "key sum" ks wantK
  check "value sum" vs wantV
  check "lookups found" found ops
