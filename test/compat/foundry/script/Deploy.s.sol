// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "../src/Counter.sol";

interface Vm {
    function envUint(string calldata name) external view returns (uint256);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
}

/// Deploys a Counter at 5 and increments it twice: three transactions from one sender, nonces in a row.
contract Deploy {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external returns (Counter counter) {
        vm.startBroadcast(vm.envUint("PRIVATE_KEY"));
        counter = new Counter(5);
        counter.increment();
        counter.increment();
        vm.stopBroadcast();
    }
}
