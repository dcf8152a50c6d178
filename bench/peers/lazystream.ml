(* lazystream in OCaml (the peer of bench/lazystream.c; see there): the same
   pipeline gen -> smap -> split -> zipp with Lazy.t tails. OCaml has no
   selector thunks: `fst p` is an ordinary lazy value holding the pair. *)
type s = Cons of int * s Lazy.t

let f x = x * 2654435761 land 0x7fffffff
let rec gen n = Cons (n, lazy (gen (n + 1)))
let rec smap (Cons (x, r)) = Cons (f x, lazy (smap (Lazy.force r)))

let rec split (Cons (x, r)) =
  let p = lazy (split (Lazy.force r)) in
  let fs = lazy (Lazy.force (fst (Lazy.force p))) and sn = lazy (Lazy.force (snd (Lazy.force p))) in
  if x land 1 = 0 then (Lazy.from_val (Cons (x, fs)), sn) else (fs, Lazy.from_val (Cons (x, sn)))

let rec zipp (Cons (a, r)) (Cons (b, s)) = Cons (a + b, lazy (zipp (Lazy.force r) (Lazy.force s)))

let expected n =
  let sum = ref 0 and ie = ref 0 and io = ref 0 in
  for _ = 1 to n do
    while f !ie land 1 <> 0 do incr ie done;
    while f !io land 1 = 0 do incr io done;
    sum := !sum + f !ie + f !io;
    incr ie;
    incr io
  done;
  !sum

let () =
  let n = Bench_stats.arg 0 10000 in
  let evens, odds = split (smap (gen 0)) in
  let s = ref (zipp (Lazy.force evens) (Lazy.force odds)) and sum = ref 0 in
  for _ = 1 to n do
    let (Cons (x, r)) = !s in
    sum := !sum + x;
    s := Lazy.force r
  done;
  Printf.printf "lazystream: n %d sum %d\n%!" n !sum;
  Bench_stats.check "lazystream" "sum" !sum (expected n)
