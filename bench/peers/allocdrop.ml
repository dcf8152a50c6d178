(* allocdrop in OCaml (the peer of bench/allocdrop.c; see there): a list of
   LEN cells built, summed and dropped REPS times. *)
type l = Nil | Cons of int * l

let[@inline never] build n =
  let rec go i acc = if i = 0 then acc else go (i - 1) (Cons (i, acc)) in
  go n Nil

let rec sum_l s = function Nil -> s | Cons (x, t) -> sum_l (s + x) t

let () =
  let len = Bench_stats.arg 0 1000 and reps = Bench_stats.arg 1 1000 in
  let total = ref 0 in
  for _ = 1 to reps do
    total := !total + sum_l 0 (build len)
  done;
  Printf.printf "allocdrop: len %d reps %d sum %d\n%!" len reps !total;
  Bench_stats.check "allocdrop" "sum" !total (reps * (len * (len + 1) / 2))
