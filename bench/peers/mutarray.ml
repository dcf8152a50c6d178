(* mutarray in OCaml (the peer of bench/mutarray.c; see there): an array of
   N boxes (records, so each write allocates and goes through caml_modify)
   receiving WRITES writes; an unscanned Bigarray is the shadow. *)
type box = { v : int }

let () =
  let n = Bench_stats.arg 0 1000 and writes = Bench_stats.arg 1 100000 in
  let arr = Array.make n { v = 0 } in
  let shadow = Bigarray.Array1.create Bigarray.int Bigarray.c_layout n in
  for i = 0 to n - 1 do
    arr.(i) <- { v = i };
    Bigarray.Array1.unsafe_set shadow i i
  done;
  let x = ref 42 in
  for t = 0 to writes - 1 do
    x := (!x * 1103515245 + 12345) land 0x7fffffff;
    let i = (!x lsr 7) mod n in
    arr.(i) <- { v = t };
    Bigarray.Array1.unsafe_set shadow i t
  done;
  let sum = ref 0 and want = ref 0 in
  for i = 0 to n - 1 do
    sum := !sum + arr.(i).v;
    want := !want + Bigarray.Array1.unsafe_get shadow i
  done;
  Printf.printf "mutarray: n %d writes %d sum %d\n%!" n writes !sum;
  Bench_stats.check "mutarray" "sum of the boxes" !sum !want
