(* Linked into every OCaml peer: at exit, print the runtime's own statistics
   in the runner's "bench-stats:" line. OCaml 4 gives no GC time or pauses;
   its copying is the minor collector's promotion (promoted words), and its
   largest heap is the top heap size (free space included, not live data). *)
let () =
  at_exit (fun () ->
      let s = Gc.quick_stat () in
      Printf.eprintf "bench-stats: gcs %d copied_bytes %.0f heap_bytes %d\n"
        (s.Gc.minor_collections + s.Gc.major_collections)
        (s.Gc.promoted_words *. 8.) (s.Gc.top_heap_words * 8))

(* The workloads' size arguments and self-check, as in bench/bench.h. *)
let arg i d = if Array.length Sys.argv > i + 1 then int_of_string Sys.argv.(i + 1) else d

let check prog what got want =
  if got <> want then begin
    Printf.eprintf "%s: check failed: %s is %d, expected %d\n" prog what got want;
    exit 1
  end
