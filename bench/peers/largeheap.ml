(* largeheap in OCaml (the peer of bench/largeheap.c; see there): an array of
   slots holding 16-cell lists, churned; an unscanned Bigarray is the shadow. *)
type l = Nil | Cons of int * l

let list_len = 16
let slot_size = (list_len * 3 * 8) + 8
let cell_value t s k = ((7 * t) + (13 * s) + k) land 0xfffff

let build t s =
  let rec go k acc = if k < 0 then acc else go (k - 1) (Cons (cell_value t s k, acc)) in
  go (list_len - 1) Nil

let rec sum_l a = function Nil -> a | Cons (x, r) -> sum_l (a + x) r

let () =
  let mib = Bench_stats.arg 0 1200 and churn = Bench_stats.arg 1 2 in
  let nslots = (mib lsl 20) / slot_size in
  let steps = churn * nslots in
  let slots = Array.make nslots Nil in
  let shadow = Bigarray.Array1.create Bigarray.int Bigarray.c_layout nslots in
  Bigarray.Array1.fill shadow 0;
  for s = 0 to nslots - 1 do
    slots.(s) <- build 0 s
  done;
  for t = 1 to steps do
    let s = t mod nslots in
    slots.(s) <- build t s;
    Bigarray.Array1.unsafe_set shadow s t
  done;
  let total = ref 0 and want = ref 0 in
  for s = 0 to nslots - 1 do
    total := sum_l !total slots.(s);
    let t = Bigarray.Array1.unsafe_get shadow s in
    for k = 0 to list_len - 1 do
      want := !want + cell_value t s k
    done
  done;
  Printf.printf "largeheap: slots %d steps %d sum %d\n%!" nslots steps !total;
  Bench_stats.check "largeheap" "sum of the cells" !total !want
