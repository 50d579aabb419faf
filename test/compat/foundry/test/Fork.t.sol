// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "../src/Counter.sol";

interface Vm {
    function envAddress(string calldata name) external view returns (address);
    function envUint(string calldata name) external view returns (uint256);
}

/// Run with --fork-url: reads the node's state, then changes it only in the fork.
contract ForkTest {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function test_readsAndWritesTheForkedCounter() external {
        Counter counter = Counter(vm.envAddress("COUNTER"));
        require(counter.number() == vm.envUint("EXPECTED_NUMBER"), "forked number");
        require(vm.envAddress("ACCOUNT").balance == vm.envUint("EXPECTED_BALANCE"), "forked balance");
        counter.increment();
        require(counter.number() == vm.envUint("EXPECTED_NUMBER") + 1, "incremented number");
    }
}
