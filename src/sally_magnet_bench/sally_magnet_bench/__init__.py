"""The electromagnet bench: one EML63mm-12 class magnet on the steel plate, alone, pulled off
straight (:func:`~.bench.pulloff`) or peeled by a lever (:func:`~.bench.peel`), with the legged
sim's magnet model; and the CMA-ES that fits the magnet's clip to the datasheet (:mod:`.fit`)."""
