(* binary-trees in OCaml (the peer of bench/binarytrees.c; see there), the
   Benchmarks Game algorithm, checked against 2^(d+1) - 1 nodes per tree. *)
type tree = Nil | Node of tree * tree

let rec make d = if d = 0 then Node (Nil, Nil) else Node (make (d - 1), make (d - 1))
let rec check = function Nil -> 0 | Node (l, r) -> 1 + check l + check r
let nodes d = (1 lsl (d + 1)) - 1

let () =
  let n = Bench_stats.arg 0 10 in
  let min_depth = 4 in
  let max_depth = max (min_depth + 2) n in
  let stretch = max_depth + 1 in
  let c = check (make stretch) in
  Printf.printf "stretch tree of depth %d\t check: %d\n" stretch c;
  Bench_stats.check "binarytrees" "stretch tree nodes" c (nodes stretch);
  let long_lived = make max_depth in
  let d = ref min_depth in
  while !d <= max_depth do
    let iterations = 1 lsl (max_depth - !d + min_depth) in
    let sum = ref 0 in
    for _ = 1 to iterations do
      sum := !sum + check (make !d)
    done;
    Printf.printf "%d\t trees of depth %d\t check: %d\n" iterations !d !sum;
    Bench_stats.check "binarytrees" "nodes" !sum (iterations * nodes !d);
    d := !d + 2
  done;
  let c = check long_lived in
  Printf.printf "long lived tree of depth %d\t check: %d\n%!" max_depth c;
  Bench_stats.check "binarytrees" "long-lived tree nodes" c (nodes max_depth)
